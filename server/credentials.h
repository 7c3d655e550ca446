// Credentials: the access keys ddbd accepts when it verifies signatures (--credentials FILE),
// each with its secret and, optionally, the session token requests must carry.
// Entry points: Credentials::Load (a file), Credentials::Parse (its text), Find.
//
// Two file formats, told apart by their first significant line:
//   plain:  one key a line, "ACCESS_KEY_ID SECRET_ACCESS_KEY [SESSION_TOKEN]", separated by
//           spaces or tabs; '#' starts a comment line; blank lines are ignored.
//   INI:    an AWS shared credentials file (~/.aws/credentials): "[profile]" sections with
//           aws_access_key_id, aws_secret_access_key and optionally aws_session_token; every
//           profile's key is accepted. '#' and ';' start comment lines.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>

#include "model/result.h"

namespace ddbd::server {

struct Credential {
  std::string secret_access_key;
  std::string session_token;  // empty: any token (or none) is accepted with this key
};

// Immutable once loaded, so safe to read from every I/O thread.
class Credentials {
 public:
  // Fails with a message naming the line for a malformed file, a key listed twice, or a
  // file with no key at all.
  static Result<Credentials> Parse(std::string_view text);
  static Result<Credentials> Load(const std::string& path);

  // Null for an unknown access key.
  const Credential* Find(std::string_view access_key) const;
  size_t size() const { return by_access_key_.size(); }
  // The first key of the file (for the --health-check client to sign with).
  const std::string& first_access_key() const { return first_access_key_; }

 private:
  struct Hash : std::hash<std::string_view> {
    using is_transparent = void;
  };
  Status Add(std::string access_key, Credential credential, size_t line);

  std::unordered_map<std::string, Credential, Hash, std::equal_to<>> by_access_key_;
  std::string first_access_key_;
};

}  // namespace ddbd::server
