// Shared table settings of CreateTable and UpdateTable.
#include "server/ops/table_settings.h"

#include <algorithm>

namespace ddbd::server::ops {
namespace {

constexpr int64_t kMaxCapacityUnits = 1'000'000'000'000;

}  // namespace

Result<std::optional<ThroughputInput>> ReadThroughput(wire::JsonObject body,
                                                      wire::ConstraintErrors& errors,
                                                      std::string_view member) {
  DDBD_ASSIGN_OR_RETURN(auto object, wire::GetObject(body, member));
  if (!object) return std::optional<ThroughputInput>();
  ThroughputInput in;
  DDBD_ASSIGN_OR_RETURN(in.read, wire::GetLong(*object, "ReadCapacityUnits"));
  DDBD_ASSIGN_OR_RETURN(in.write, wire::GetLong(*object, "WriteCapacityUnits"));
  auto check = [&](const std::optional<int64_t>& units, std::string_view path) {
    if (!units) {
      errors.NotNull(path);
    } else if (*units < 1) {
      errors.ValueAtLeast(std::to_string(*units), path, 1);
    }
  };
  const std::string path = wire::EnvelopeName(member);
  check(in.write, path + ".writeCapacityUnits");
  check(in.read, path + ".readCapacityUnits");
  return std::optional<ThroughputInput>(in);
}

Result<std::optional<SseDescription>> ReadSse(wire::JsonObject body, std::string_view region,
                                              wire::ConstraintErrors& errors,
                                              std::string_view member) {
  DDBD_ASSIGN_OR_RETURN(auto object, wire::GetObject(body, member));
  if (!object) return std::optional<SseDescription>();
  DDBD_ASSIGN_OR_RETURN(std::optional<bool> enabled, wire::GetBool(*object, "Enabled"));
  const std::string path = wire::EnvelopeName(member);
  DDBD_ASSIGN_OR_RETURN(auto type,
                        ReadEnum(*object, "SSEType", path + ".sSEType", {"AES256", "KMS"}, errors));
  DDBD_ASSIGN_OR_RETURN(auto key, wire::GetString(*object, "KMSMasterKeyId"));
  SseDescription sse;
  sse.enabled = enabled.value_or(false);
  if (sse.enabled) {
    sse.sse_type = std::string(type.value_or("KMS"));
    std::string key_id = key ? std::string(*key) : "ddbd-default-key";
    sse.kms_master_key_id = key_id.substr(0, 4) == "arn:"
                                ? key_id
                                : "arn:aws:kms:" + std::string(region) + ":" +
                                      std::string(kAccountId) + ":key/" + key_id;
  }
  return std::optional<SseDescription>(sse);
}

namespace {

std::optional<KeyAttributeType> ParseKeyType(std::string_view name) {
  if (name == "S") return KeyAttributeType::kS;
  if (name == "N") return KeyAttributeType::kN;
  if (name == "B") return KeyAttributeType::kB;
  return std::nullopt;
}

}  // namespace

void CheckKeyAttributeName(std::optional<std::string_view> name, const std::string& path,
                           wire::ConstraintErrors& errors) {
  if (!name) {
    errors.NotNull(path);
  } else if (name->empty()) {
    errors.LengthAtLeast(*name, path, 1);
  } else if (name->size() > 255) {
    errors.LengthAtMost(*name, path, 255);
  }
}

Result<std::vector<KeySchemaInput>> ReadKeySchema(wire::JsonObject object, const std::string& path,
                                                  size_t max_elements,
                                                  wire::ConstraintErrors& errors) {
  DDBD_ASSIGN_OR_RETURN(auto array, wire::GetArray(object, "KeySchema"));
  std::vector<KeySchemaInput> schema;
  if (!array) {
    errors.NotNull(path);
    return schema;
  }
  size_t index = 0;
  for (wire::JsonValue element : *array) {
    const std::string element_path = path + "." + std::to_string(++index) + ".member";
    DDBD_ASSIGN_OR_RETURN(wire::JsonObject key, wire::AsObject(element));
    DDBD_ASSIGN_OR_RETURN(auto name, wire::GetString(key, "AttributeName"));
    DDBD_ASSIGN_OR_RETURN(auto key_type, ReadEnum(key, "KeyType", element_path + ".keyType",
                                                  {"HASH", "RANGE"}, errors));
    CheckKeyAttributeName(name, element_path + ".attributeName", errors);
    if (!wire::Member(key, "KeyType")) errors.NotNull(element_path + ".keyType");
    schema.push_back({std::string(name.value_or("")), std::string(key_type.value_or(""))});
  }
  if (schema.empty()) errors.LengthAtLeast("[]", path, 1);
  if (schema.size() > max_elements) errors.LengthAtMost("[...]", path, max_elements);
  return schema;
}

Result<std::vector<AttributeDefinition>> ReadAttributeDefinitions(wire::JsonObject body,
                                                                  bool required,
                                                                  wire::ConstraintErrors& errors) {
  DDBD_ASSIGN_OR_RETURN(auto array, wire::GetArray(body, "AttributeDefinitions"));
  std::vector<AttributeDefinition> definitions;
  if (!array) {
    if (required) errors.NotNull("attributeDefinitions");
    return definitions;
  }
  size_t index = 0;
  for (wire::JsonValue element : *array) {
    const std::string path = "attributeDefinitions." + std::to_string(++index) + ".member";
    DDBD_ASSIGN_OR_RETURN(wire::JsonObject object, wire::AsObject(element));
    DDBD_ASSIGN_OR_RETURN(auto name, wire::GetString(object, "AttributeName"));
    DDBD_ASSIGN_OR_RETURN(auto type, ReadEnum(object, "AttributeType", path + ".attributeType",
                                              {"S", "N", "B"}, errors));
    CheckKeyAttributeName(name, path + ".attributeName", errors);
    if (!type && !wire::Member(object, "AttributeType")) errors.NotNull(path + ".attributeType");
    definitions.push_back({std::string(name.value_or("")),
                           ParseKeyType(type.value_or("S")).value_or(KeyAttributeType::kS)});
  }
  return definitions;
}

Result<std::optional<OnDemandInput>> ReadOnDemandThroughput(wire::JsonObject object,
                                                            std::string_view member) {
  DDBD_ASSIGN_OR_RETURN(auto on_demand, wire::GetObject(object, member));
  if (!on_demand) return std::optional<OnDemandInput>();
  OnDemandInput in;
  DDBD_ASSIGN_OR_RETURN(in.max_read, wire::GetLong(*on_demand, "MaxReadRequestUnits"));
  DDBD_ASSIGN_OR_RETURN(in.max_write, wire::GetLong(*on_demand, "MaxWriteRequestUnits"));
  return std::optional<OnDemandInput>(in);
}

// Texts from DynamoDB's answers; the index variants of the PROVISIONED message end as the
// CreateTable one does (unverified).
Status CheckOnDemand(const OnDemandInput& in, BillingMode mode, OnDemandSite site,
                     std::string_view index_name) {
  const bool for_index = site == OnDemandSite::kCreateIndex || site == OnDemandSite::kUpdateIndex;
  const std::string prefix = "One or more parameter values were invalid: ";
  if (mode == BillingMode::kProvisioned && (in.max_read || in.max_write)) {
    const std::string member = in.max_read ? "MaxReadRequestUnits" : "MaxWriteRequestUnits";
    if (site == OnDemandSite::kUpdateTable) {
      return Error::Validation(prefix + member +
                               " for OnDemandThroughput cannot be specified "
                               "when the table BillingMode is PROVISIONED");
    }
    return Error::Validation(prefix + member + " for OnDemandThroughput " +
                             (for_index ? "for index: " + std::string(index_name) + " " : "") +
                             "cannot be specified when table BillingMode is PROVISIONED.");
  }
  const bool may_clear = site == OnDemandSite::kUpdateTable || site == OnDemandSite::kUpdateIndex;
  for (const auto& [units, member] : {std::pair{in.max_read, "MaxReadRequestUnits"},
                                      std::pair{in.max_write, "MaxWriteRequestUnits"}}) {
    if (!units || *units >= 1 || (may_clear && *units == -1)) continue;
    return Error::Validation(prefix + "Requested " + member + " for OnDemandThroughput for " +
                             (for_index ? "index : " + std::string(index_name) : "table") +
                             " is outside of valid range");
  }
  return OkStatus();
}

void ApplyOnDemand(const OnDemandInput& in, OnDemandThroughput& on_demand) {
  if (in.max_read) on_demand.max_read_request_units = *in.max_read;
  if (in.max_write) on_demand.max_write_request_units = *in.max_write;
}

Result<std::optional<StreamInput>> ReadStreamSpecification(wire::JsonObject body,
                                                           wire::ConstraintErrors& errors) {
  DDBD_ASSIGN_OR_RETURN(auto spec, wire::GetObject(body, "StreamSpecification"));
  if (!spec) return std::optional<StreamInput>();
  StreamInput in;
  DDBD_ASSIGN_OR_RETURN(auto enabled, wire::GetBool(*spec, "StreamEnabled"));
  if (!enabled) errors.NotNull("streamSpecification.streamEnabled");
  in.enabled = enabled.value_or(false);
  DDBD_ASSIGN_OR_RETURN(
      auto view, ReadEnum(*spec, "StreamViewType", "streamSpecification.streamViewType",
                          {"NEW_IMAGE", "OLD_IMAGE", "NEW_AND_OLD_IMAGES", "KEYS_ONLY"}, errors));
  if (view == "NEW_IMAGE") in.view_type = StreamViewType::kNewImage;
  if (view == "OLD_IMAGE") in.view_type = StreamViewType::kOldImage;
  if (view == "NEW_AND_OLD_IMAGES") in.view_type = StreamViewType::kNewAndOldImages;
  if (view == "KEYS_ONLY") in.view_type = StreamViewType::kKeysOnly;
  return std::optional<StreamInput>(in);
}

Status ApplyStream(const StreamInput& in, bool on_create, uint64_t new_stream_id, int64_t now_ms,
                   TableDef& table) {
  if (in.enabled && !in.view_type) {
    return Error::Validation(
        "One or more parameter values were invalid: If stream is being "
        "enabled then UpdateViewType is required");
  }
  if (!in.enabled && in.view_type) {
    return Error::Validation(
        "One or more parameter values were invalid: If stream is being "
        "disabled, then UpdateViewType must not be specified");
  }
  if (in.enabled) {
    if (table.EnabledStream()) {
      return Error::Validation("Table already has an enabled stream: TableName: " + table.name);
    }
    // A stream's label (and ARN) is its creation time in milliseconds: a stream enabled
    // within the same millisecond as the previous one is dated a millisecond later.
    const int64_t created =
        table.streams.empty() ? now_ms : std::max(now_ms, table.streams.back().created_ms + 1);
    table.streams.push_back(StreamSpec{new_stream_id, *in.view_type, created, true});
  } else if (!on_create) {
    if (table.replication) {
      return Error::Validation(
          "One or more parameter values were invalid: Disabling Stream is not allowed for a "
          "Global Table replica.");
    }
    if (!table.EnabledStream()) {
      return Error::Validation("Table has no stream to disable: TableName: " + table.name);
    }
    table.streams.back().enabled = false;
  }
  return OkStatus();
}

Result<TableSettingsInput> ReadTableSettings(wire::JsonObject body, std::string_view region,
                                             wire::ConstraintErrors& errors) {
  TableSettingsInput in;
  DDBD_ASSIGN_OR_RETURN(auto mode, ReadEnum(body, "BillingMode", "billingMode",
                                            {"PROVISIONED", "PAY_PER_REQUEST"}, errors));
  if (mode == "PROVISIONED") in.billing_mode = BillingMode::kProvisioned;
  if (mode == "PAY_PER_REQUEST") in.billing_mode = BillingMode::kPayPerRequest;
  DDBD_ASSIGN_OR_RETURN(in.throughput, ReadThroughput(body, errors));
  DDBD_ASSIGN_OR_RETURN(in.on_demand, ReadOnDemandThroughput(body));
  DDBD_ASSIGN_OR_RETURN(in.sse, ReadSse(body, region, errors));
  DDBD_ASSIGN_OR_RETURN(in.stream, ReadStreamSpecification(body, errors));
  DDBD_ASSIGN_OR_RETURN(in.table_class,
                        ReadEnum(body, "TableClass", "tableClass",
                                 {"STANDARD", "STANDARD_INFREQUENT_ACCESS"}, errors));
  DDBD_ASSIGN_OR_RETURN(in.deletion_protection, wire::GetBool(body, "DeletionProtectionEnabled"));
  return in;
}

Status CheckThroughputForMode(BillingMode mode, const std::optional<ThroughputInput>& throughput) {
  if (mode == BillingMode::kPayPerRequest) {
    if (throughput) {
      return Error::Validation(
          "One or more parameter values were invalid: Neither ReadCapacityUnits nor "
          "WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST");
    }
    return OkStatus();
  }
  if (!throughput || !throughput->read || !throughput->write) {
    return Error::Validation(
        "One or more parameter values were invalid: ReadCapacityUnits and WriteCapacityUnits "
        "must both be specified when BillingMode is PROVISIONED");
  }
  if (*throughput->read > kMaxCapacityUnits) {
    return Error::Validation("Given value " + std::to_string(*throughput->read) +
                             " for ReadCapacityUnits is out of bounds");
  }
  if (*throughput->write > kMaxCapacityUnits) {
    return Error::Validation("Given value " + std::to_string(*throughput->write) +
                             " for WriteCapacityUnits is out of bounds");
  }
  return OkStatus();
}

}  // namespace ddbd::server::ops
