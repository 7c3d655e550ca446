// The table of DynamoDB exceptions: the only place that lists exception names, namespaces
// and statuses (spec/limits.md §1.3).
#include "model/error.h"

#include <array>

namespace ddbd {
namespace {

constexpr ErrorInfo kErrors[] = {
    {ErrorCode::kValidation, "com.amazon.coral.validate#ValidationException", 400,
     MessageMember::kLowerCase},
    {ErrorCode::kSerialization, "com.amazon.coral.service#SerializationException", 400,
     MessageMember::kUpperCase},
    {ErrorCode::kUnknownOperation, "com.amazon.coral.service#UnknownOperationException", 400,
     MessageMember::kNone},
    {ErrorCode::kMissingAuthenticationToken,
     "com.amazon.coral.service#MissingAuthenticationTokenException", 400,
     MessageMember::kLowerCase},
    {ErrorCode::kIncompleteSignature, "com.amazon.coral.service#IncompleteSignatureException", 400,
     MessageMember::kLowerCase},
    {ErrorCode::kInvalidSignature, "com.amazon.coral.service#InvalidSignatureException", 400,
     MessageMember::kLowerCase},
    {ErrorCode::kUnrecognizedClient, "com.amazon.coral.service#UnrecognizedClientException", 400,
     MessageMember::kLowerCase},
    {ErrorCode::kResourceNotFound, "com.amazonaws.dynamodb.v20120810#ResourceNotFoundException",
     400, MessageMember::kLowerCase},
    {ErrorCode::kTableNotFound, "com.amazonaws.dynamodb.v20120810#TableNotFoundException", 400,
     MessageMember::kLowerCase},
    {ErrorCode::kTableAlreadyExists, "com.amazonaws.dynamodb.v20120810#TableAlreadyExistsException",
     400, MessageMember::kLowerCase},
    {ErrorCode::kBackupNotFound, "com.amazonaws.dynamodb.v20120810#BackupNotFoundException", 400,
     MessageMember::kLowerCase},
    {ErrorCode::kBackupInUse, "com.amazonaws.dynamodb.v20120810#BackupInUseException", 400,
     MessageMember::kLowerCase},
    {ErrorCode::kPointInTimeRecoveryUnavailable,
     "com.amazonaws.dynamodb.v20120810#PointInTimeRecoveryUnavailableException", 400,
     MessageMember::kLowerCase},
    {ErrorCode::kInvalidRestoreTime, "com.amazonaws.dynamodb.v20120810#InvalidRestoreTimeException",
     400, MessageMember::kLowerCase},
    {ErrorCode::kInvalidExportTime, "com.amazonaws.dynamodb.v20120810#InvalidExportTimeException",
     400, MessageMember::kLowerCase},
    {ErrorCode::kExportNotFound, "com.amazonaws.dynamodb.v20120810#ExportNotFoundException", 400,
     MessageMember::kLowerCase},
    {ErrorCode::kExportConflict, "com.amazonaws.dynamodb.v20120810#ExportConflictException", 400,
     MessageMember::kLowerCase},
    {ErrorCode::kImportNotFound, "com.amazonaws.dynamodb.v20120810#ImportNotFoundException", 400,
     MessageMember::kLowerCase},
    {ErrorCode::kImportConflict, "com.amazonaws.dynamodb.v20120810#ImportConflictException", 400,
     MessageMember::kLowerCase},
    {ErrorCode::kPolicyNotFound, "com.amazonaws.dynamodb.v20120810#PolicyNotFoundException", 400,
     MessageMember::kLowerCase},
    {ErrorCode::kGlobalTableNotFound,
     "com.amazonaws.dynamodb.v20120810#GlobalTableNotFoundException", 400,
     MessageMember::kLowerCase},
    {ErrorCode::kAccessDenied, "com.amazon.coral.service#AccessDeniedException", 400,
     MessageMember::kUpperCase},
    {ErrorCode::kResourceInUse, "com.amazonaws.dynamodb.v20120810#ResourceInUseException", 400,
     MessageMember::kLowerCase},
    {ErrorCode::kLimitExceeded, "com.amazonaws.dynamodb.v20120810#LimitExceededException", 400,
     MessageMember::kLowerCase},
    {ErrorCode::kConditionalCheckFailed,
     "com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException", 400,
     MessageMember::kLowerCase},
    {ErrorCode::kDuplicateItem, "com.amazonaws.dynamodb.v20120810#DuplicateItemException", 400,
     MessageMember::kLowerCase},
    {ErrorCode::kTransactionCanceled,
     "com.amazonaws.dynamodb.v20120810#TransactionCanceledException", 400,
     MessageMember::kUpperCase},
    {ErrorCode::kTransactionInProgress,
     "com.amazonaws.dynamodb.v20120810#TransactionInProgressException", 400,
     MessageMember::kUpperCase},
    {ErrorCode::kIdempotentParameterMismatch,
     "com.amazonaws.dynamodb.v20120810#IdempotentParameterMismatchException", 400,
     MessageMember::kUpperCase},
    {ErrorCode::kItemCollectionSizeLimitExceeded,
     "com.amazonaws.dynamodb.v20120810#ItemCollectionSizeLimitExceededException", 400,
     MessageMember::kLowerCase},
    {ErrorCode::kInternal, "com.amazonaws.dynamodb.v20120810#InternalServerError", 500,
     MessageMember::kLowerCase},
    // The name DynamoDB's error documentation gives its 503 (the __type is unverified).
    {ErrorCode::kServiceUnavailable, "com.amazonaws.dynamodb.v20120810#ServiceUnavailable", 503,
     MessageMember::kLowerCase},
    // ddbd's own: the control API is not DynamoDB's, so its types carry ddbd's namespace.
    {ErrorCode::kControlNotFound, "ddbd#NotFoundException", 404, MessageMember::kLowerCase},
    {ErrorCode::kControlMethodNotAllowed, "ddbd#MethodNotAllowedException", 405,
     MessageMember::kLowerCase},
    {ErrorCode::kProvisionedThroughputExceeded,
     "com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException", 400,
     MessageMember::kLowerCase},
    // Part of DynamoDB's API model since it carries ThrottlingReasons (on-demand throttling).
    {ErrorCode::kThrottling, "com.amazonaws.dynamodb.v20120810#ThrottlingException", 400,
     MessageMember::kLowerCase},
    {ErrorCode::kRequestLimitExceeded, "com.amazonaws.dynamodb.v20120810#RequestLimitExceeded", 400,
     MessageMember::kLowerCase},
    {ErrorCode::kTransactionConflict,
     "com.amazonaws.dynamodb.v20120810#TransactionConflictException", 400,
     MessageMember::kLowerCase},
    {ErrorCode::kExpiredIterator, "com.amazonaws.dynamodb.v20120810#ExpiredIteratorException", 400,
     MessageMember::kLowerCase},
    {ErrorCode::kTrimmedDataAccess, "com.amazonaws.dynamodb.v20120810#TrimmedDataAccessException",
     400, MessageMember::kLowerCase},
};
static_assert(std::size(kErrors) == kErrorCodeCount, "a new ErrorCode needs a row");

constexpr bool RowsInCodeOrder() {
  for (size_t i = 0; i < std::size(kErrors); ++i) {
    if (static_cast<size_t>(kErrors[i].code) != i) return false;
  }
  return true;
}
static_assert(RowsInCodeOrder(), "kErrors rows must follow ErrorCode order");

}  // namespace

const ErrorInfo& ErrorInfoFor(ErrorCode code) { return kErrors[static_cast<size_t>(code)]; }

std::optional<ErrorCode> ErrorCodeNamed(std::string_view name) {
  for (const ErrorInfo& info : kErrors) {
    if (info.type.substr(info.type.rfind('#') + 1) == name) return info.code;
  }
  return std::nullopt;
}

Error Error::ExpiredIterator(std::string message) {
  return Error(ErrorCode::kExpiredIterator, std::move(message));
}

Error Error::TrimmedDataAccess() {
  // The text users report from DynamoDB (unverified against its documentation).
  return Error(ErrorCode::kTrimmedDataAccess, "The data you are trying to access has been trimmed");
}
Error Error::ControlNotFound(std::string message) {
  return Error(ErrorCode::kControlNotFound, std::move(message));
}
Error Error::ControlMethodNotAllowed(std::string message) {
  return Error(ErrorCode::kControlMethodNotAllowed, std::move(message));
}
Error Error::Validation(std::string message) {
  return Error(ErrorCode::kValidation, std::move(message));
}
Error Error::Serialization(std::string message) {
  return Error(ErrorCode::kSerialization, std::move(message));
}
Error Error::UnknownOperation() { return Error(ErrorCode::kUnknownOperation, {}); }
Error Error::MissingAuthenticationToken() {
  return Error(ErrorCode::kMissingAuthenticationToken, "Request is missing Authentication Token");
}
Error Error::IncompleteSignature(std::string message) {
  return Error(ErrorCode::kIncompleteSignature, std::move(message));
}
Error Error::InvalidSignature(std::string message) {
  return Error(ErrorCode::kInvalidSignature, std::move(message));
}
Error Error::UnrecognizedClient(std::string message) {
  return Error(ErrorCode::kUnrecognizedClient, std::move(message));
}
Error Error::ResourceNotFound(std::string message) {
  return Error(ErrorCode::kResourceNotFound, std::move(message));
}
Error Error::TableNotFound(std::string message) {
  return Error(ErrorCode::kTableNotFound, std::move(message));
}
Error Error::TableAlreadyExists(std::string message) {
  return Error(ErrorCode::kTableAlreadyExists, std::move(message));
}
Error Error::BackupNotFound(std::string message) {
  return Error(ErrorCode::kBackupNotFound, std::move(message));
}
Error Error::BackupInUse(std::string message) {
  return Error(ErrorCode::kBackupInUse, std::move(message));
}
Error Error::PointInTimeRecoveryUnavailable(std::string message) {
  return Error(ErrorCode::kPointInTimeRecoveryUnavailable, std::move(message));
}
Error Error::InvalidRestoreTime(std::string message) {
  return Error(ErrorCode::kInvalidRestoreTime, std::move(message));
}
Error Error::InvalidExportTime(std::string message) {
  return Error(ErrorCode::kInvalidExportTime, std::move(message));
}
Error Error::ExportNotFound(std::string message) {
  return Error(ErrorCode::kExportNotFound, std::move(message));
}
Error Error::ExportConflict(std::string message) {
  return Error(ErrorCode::kExportConflict, std::move(message));
}
Error Error::ImportNotFound(std::string message) {
  return Error(ErrorCode::kImportNotFound, std::move(message));
}
Error Error::ImportConflict(std::string message) {
  return Error(ErrorCode::kImportConflict, std::move(message));
}

Error Error::PolicyNotFound(std::string message) {
  return Error(ErrorCode::kPolicyNotFound, std::move(message));
}

Error Error::GlobalTableNotFound(std::string message) {
  return Error(ErrorCode::kGlobalTableNotFound, std::move(message));
}

Error Error::AccessDenied(std::string message) {
  return Error(ErrorCode::kAccessDenied, std::move(message));
}
Error Error::ResourceInUse(std::string message) {
  return Error(ErrorCode::kResourceInUse, std::move(message));
}
Error Error::LimitExceeded(std::string message) {
  return Error(ErrorCode::kLimitExceeded, std::move(message));
}
Error Error::ConditionalCheckFailed(std::shared_ptr<const Item> old_item) {
  Error error(ErrorCode::kConditionalCheckFailed, "The conditional request failed");
  error.item_ = std::move(old_item);
  return error;
}
Error Error::ItemCollectionSizeLimitExceeded() {
  // Text unverified against DynamoDB (spec/limits.md §8 recommendation).
  return Error(ErrorCode::kItemCollectionSizeLimitExceeded,
               "Item collection size limit exceeded. Reduce the size of the item collection, or "
               "remove the LSI.");
}

Error Error::DuplicateItem() {
  return Error(ErrorCode::kDuplicateItem, "Duplicate primary key exists in table");
}

Error Error::Internal(std::string message) {
  return Error(ErrorCode::kInternal, std::move(message));
}

Error Error::ServiceUnavailable(std::string message) {
  return Error(ErrorCode::kServiceUnavailable, std::move(message));
}

Error Error::TransactionCanceled(std::vector<CancellationReason> reasons) {
  std::string message =
      "Transaction cancelled, please refer cancellation reasons for specific reasons [";
  for (size_t i = 0; i < reasons.size(); ++i) {
    if (i > 0) message += ", ";
    message += reasons[i].code;
  }
  message += "]";
  Error error(ErrorCode::kTransactionCanceled, std::move(message));
  error.reasons_ = std::make_shared<const std::vector<CancellationReason>>(std::move(reasons));
  return error;
}

Error Error::TransactionInProgress(std::string message) {
  return Error(ErrorCode::kTransactionInProgress, std::move(message));
}

Error Error::IdempotentParameterMismatch(std::string message) {
  return Error(ErrorCode::kIdempotentParameterMismatch, std::move(message));
}

Error Error::Throttled(ErrorCode code, std::string message, ThrottlingReason reason) {
  Error error(code, std::move(message));
  error.throttling_reasons_ =
      std::make_shared<const std::vector<ThrottlingReason>>(1, std::move(reason));
  return error;
}

Error Error::Throttling(std::string message) {
  return Error(ErrorCode::kThrottling, std::move(message));
}

const std::vector<ThrottlingReason>& Error::throttling_reasons() const {
  static const std::vector<ThrottlingReason> kNone;
  return throttling_reasons_ ? *throttling_reasons_ : kNone;
}

const std::vector<CancellationReason>& Error::cancellation_reasons() const {
  static const std::vector<CancellationReason> kNone;
  return reasons_ ? *reasons_ : kNone;
}

}  // namespace ddbd
