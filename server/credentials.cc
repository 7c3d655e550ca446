// Parsing of the --credentials file, in its plain and INI forms.
#include "server/credentials.h"

#include <fstream>
#include <sstream>
#include <vector>

namespace ddbd::server {
namespace {

std::string_view Trim(std::string_view text) {
  const size_t start = text.find_first_not_of(" \t\r");
  if (start == std::string_view::npos) return {};
  const size_t end = text.find_last_not_of(" \t\r");
  return text.substr(start, end - start + 1);
}

std::vector<std::string_view> Lines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

std::vector<std::string_view> Words(std::string_view line) {
  std::vector<std::string_view> words;
  size_t start = 0;
  while ((start = line.find_first_not_of(" \t", start)) != std::string_view::npos) {
    size_t end = line.find_first_of(" \t", start);
    if (end == std::string_view::npos) end = line.size();
    words.push_back(line.substr(start, end - start));
    start = end;
  }
  return words;
}

Error LineError(size_t line, std::string what) {
  return Error::Validation("credentials file, line " + std::to_string(line) + ": " + what);
}

}  // namespace

Status Credentials::Add(std::string access_key, Credential credential, size_t line) {
  if (credential.secret_access_key.empty()) {
    return LineError(line, "access key '" + access_key + "' has no secret");
  }
  if (first_access_key_.empty()) first_access_key_ = access_key;
  if (!by_access_key_.emplace(access_key, std::move(credential)).second) {
    return LineError(line, "access key '" + access_key + "' is listed twice");
  }
  return OkStatus();
}

Result<Credentials> Credentials::Parse(std::string_view text) {
  Credentials credentials;
  const std::vector<std::string_view> lines = Lines(text);
  bool ini = false;
  for (std::string_view raw : lines) {
    std::string_view line = Trim(raw);
    if (line.empty() || line.front() == '#' || line.front() == ';') continue;
    ini = line.front() == '[';
    break;
  }

  // INI: one pending key per profile, added when the profile ends.
  std::string access_key;
  Credential credential;
  size_t section_line = 0;
  auto finish_section = [&]() -> Status {
    if (section_line == 0) return OkStatus();
    if (access_key.empty()) {
      if (credential.secret_access_key.empty()) return OkStatus();  // e.g. a role profile
      return LineError(section_line, "profile has aws_secret_access_key but no aws_access_key_id");
    }
    DDBD_RETURN_IF_ERROR(
        credentials.Add(std::move(access_key), std::move(credential), section_line));
    access_key.clear();
    credential = Credential{};
    return OkStatus();
  };

  for (size_t i = 0; i < lines.size(); ++i) {
    const size_t number = i + 1;
    std::string_view line = Trim(lines[i]);
    if (line.empty() || line.front() == '#' || line.front() == ';') continue;
    if (!ini) {
      std::vector<std::string_view> words = Words(line);
      if (words.size() < 2 || words.size() > 3) {
        return LineError(number, "expected 'ACCESS_KEY_ID SECRET_ACCESS_KEY [SESSION_TOKEN]'");
      }
      Credential entry{std::string(words[1]), words.size() == 3 ? std::string(words[2]) : ""};
      DDBD_RETURN_IF_ERROR(credentials.Add(std::string(words[0]), std::move(entry), number));
      continue;
    }
    if (line.front() == '[') {
      if (line.back() != ']') return LineError(number, "expected '[profile]'");
      DDBD_RETURN_IF_ERROR(finish_section());
      section_line = number;
      continue;
    }
    const size_t equals = line.find('=');
    if (equals == std::string_view::npos) return LineError(number, "expected 'name = value'");
    const std::string_view name = Trim(line.substr(0, equals));
    const std::string value(Trim(line.substr(equals + 1)));
    if (name == "aws_access_key_id") {
      access_key = value;
    } else if (name == "aws_secret_access_key") {
      credential.secret_access_key = value;
    } else if (name == "aws_session_token" || name == "aws_security_token") {
      credential.session_token = value;
    }  // other settings (region, role_arn, ...) do not concern ddbd
  }
  DDBD_RETURN_IF_ERROR(finish_section());
  if (credentials.size() == 0) return Error::Validation("credentials file lists no access key");
  return credentials;
}

Result<Credentials> Credentials::Load(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return Error::Validation("cannot read credentials file '" + path + "'");
  std::ostringstream text;
  text << file.rdbuf();
  Result<Credentials> parsed = Parse(text.str());
  if (!parsed.ok()) return Error::Validation(path + ": " + parsed.error().message());
  return parsed;
}

const Credential* Credentials::Find(std::string_view access_key) const {
  auto it = by_access_key_.find(access_key);
  return it == by_access_key_.end() ? nullptr : &it->second;
}

}  // namespace ddbd::server
