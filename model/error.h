// The one error type of ddbd: a DynamoDB exception (code + message) carried as a value.
// Entry points: Error's factories, one per exception; ErrorInfoFor() maps a code to the
// `__type` DynamoDB sends and the HTTP status. Formatting to JSON happens only in
// server/http/error_reply.cc.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ddbd {

class Item;

enum class ErrorCode : uint8_t {
  kValidation,
  kSerialization,
  kUnknownOperation,
  kMissingAuthenticationToken,
  kIncompleteSignature,
  kInvalidSignature,
  kUnrecognizedClient,
  kResourceNotFound,
  kTableNotFound,
  kTableAlreadyExists,
  kBackupNotFound,
  kBackupInUse,
  kPointInTimeRecoveryUnavailable,
  kInvalidRestoreTime,
  kInvalidExportTime,
  kExportNotFound,
  kExportConflict,
  kImportNotFound,
  kImportConflict,
  kPolicyNotFound,
  kGlobalTableNotFound,
  kAccessDenied,
  kResourceInUse,
  kLimitExceeded,
  kConditionalCheckFailed,
  kDuplicateItem,
  kTransactionCanceled,
  kTransactionInProgress,
  kIdempotentParameterMismatch,
  kItemCollectionSizeLimitExceeded,
  kInternal,
  kServiceUnavailable,
  kControlNotFound,
  kControlMethodNotAllowed,
  // Capacity throttling (capacity/, --enforce-capacity) and fault injection (faults/).
  kProvisionedThroughputExceeded,
  kThrottling,
  kRequestLimitExceeded,
  kTransactionConflict,
  kExpiredIterator,
  kTrimmedDataAccess,
};
inline constexpr size_t kErrorCodeCount = 40;

// How the message is carried in the error body: DynamoDB spells the member differently per
// exception, and some exceptions have no message at all.
enum class MessageMember : uint8_t { kLowerCase, kUpperCase, kNone };

struct ErrorInfo {
  ErrorCode code;
  std::string_view type;  // full `__type`, namespace included
  int http_status;
  MessageMember message_member;
};

const ErrorInfo& ErrorInfoFor(ErrorCode code);
// The code of an exception by its name without namespace ("ThrottlingException"); nullopt for
// a name DynamoDB does not use.
std::optional<ErrorCode> ErrorCodeNamed(std::string_view name);

// Why one action of a transaction could not be applied ("None" when it could): an entry of
// TransactionCanceledException's CancellationReasons.
struct CancellationReason {
  std::string code = "None";
  std::string message;               // empty for "None"
  std::shared_ptr<const Item> item;  // ReturnValuesOnConditionCheckFailure=ALL_OLD
};

// Why a request was throttled (the ThrottlingReasons of a throttling exception):
// "<Table|Index><Read|Write><limit>" and the ARN of the table or index throttled.
struct ThrottlingReason {
  std::string reason;
  std::string resource;
};

class Error {
 public:
  static Error Validation(std::string message);
  // A SerializationException: without a message when the body is not JSON at all, with one
  // when a member has the wrong JSON type.
  static Error Serialization(std::string message = {});
  static Error UnknownOperation();
  static Error MissingAuthenticationToken();
  // SigV4 failures (server/http/sigv4.cc words the messages): a signature missing parts, one
  // that does not verify (or is out of date), an unknown access key or session token.
  static Error IncompleteSignature(std::string message);
  static Error InvalidSignature(std::string message);
  static Error UnrecognizedClient(std::string message);
  static Error ResourceNotFound(std::string message = "Requested resource not found");
  // The backup APIs' way of saying a table does not exist.
  static Error TableNotFound(std::string message);
  static Error TableAlreadyExists(std::string message);
  static Error BackupNotFound(std::string message);
  static Error BackupInUse(std::string message);
  static Error PointInTimeRecoveryUnavailable(std::string message);
  static Error InvalidRestoreTime(std::string message);
  static Error InvalidExportTime(std::string message);
  static Error ExportNotFound(std::string message);
  static Error ExportConflict(std::string message);
  static Error ImportNotFound(std::string message);
  static Error ImportConflict(std::string message);
  static Error PolicyNotFound(std::string message);
  static Error GlobalTableNotFound(std::string message);
  static Error AccessDenied(std::string message);
  static Error ResourceInUse(std::string message);
  static Error LimitExceeded(std::string message);
  static Error ConditionalCheckFailed(std::shared_ptr<const Item> old_item = nullptr);
  static Error ItemCollectionSizeLimitExceeded();
  // PartiQL's INSERT of an item that exists.
  static Error DuplicateItem();
  static Error Internal(std::string message = "Internal server error");
  // HTTP 503, retried by the SDKs: ddbd is serving its maximum number of connections.
  static Error ServiceUnavailable(std::string message);
  // One reason per action of the transaction, in request order.
  static Error TransactionCanceled(std::vector<CancellationReason> reasons);
  static Error TransactionInProgress(std::string message);
  static Error IdempotentParameterMismatch(std::string message);
  // A throttling exception (ProvisionedThroughputExceededException or ThrottlingException)
  // with its one reason.
  static Error Throttled(ErrorCode code, std::string message, ThrottlingReason reason);
  // ThrottlingException without reasons (a resource-based policy changed moments ago).
  static Error Throttling(std::string message);
  // DynamoDB Streams: a shard iterator older than 15 minutes.
  static Error ExpiredIterator(std::string message);
  // DynamoDB Streams: a read positioned before records that retention has removed (24 hours).
  static Error TrimmedDataAccess();
  // The control API's (/ddbd/…) 404 — no such path, namespace or snapshot — and 405.
  static Error ControlNotFound(std::string message);
  static Error ControlMethodNotAllowed(std::string message);

  Error(ErrorCode code, std::string message) : code_(code), message_(std::move(message)) {}

  ErrorCode code() const { return code_; }
  const std::string& message() const { return message_; }
  std::string_view type() const { return ErrorInfoFor(code_).type; }
  // The exception's name without its namespace ("ValidationException").
  std::string_view name() const { return type().substr(type().rfind('#') + 1); }
  int http_status() const { return ErrorInfoFor(code_).http_status; }
  // The item returned with ConditionalCheckFailedException when the request asked for it.
  const std::shared_ptr<const Item>& item() const { return item_; }
  // TransactionCanceledException's reasons; empty for every other error.
  const std::vector<CancellationReason>& cancellation_reasons() const;
  // A throttling exception's reasons; empty for every other error.
  const std::vector<ThrottlingReason>& throttling_reasons() const;

 private:
  ErrorCode code_;
  std::string message_;
  std::shared_ptr<const Item> item_;
  std::shared_ptr<const std::vector<CancellationReason>> reasons_;
  std::shared_ptr<const std::vector<ThrottlingReason>> throttling_reasons_;
};

}  // namespace ddbd
