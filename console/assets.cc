// Looking up the console's embedded files by name.
#include "console/assets.h"

namespace ddbd::console {
namespace {

std::string_view ContentTypeOf(std::string_view name) {
  if (name.ends_with(".js")) return "text/javascript; charset=utf-8";
  if (name.ends_with(".css")) return "text/css; charset=utf-8";
  return "text/html; charset=utf-8";
}

}  // namespace

std::optional<Asset> FindAsset(std::string_view name) {
  if (name.empty()) name = "index.html";
  for (size_t i = 0; i < kEmbeddedFileCount; ++i) {
    const EmbeddedFile& file = kEmbeddedFiles[i];
    if (name == file.name) return Asset{ContentTypeOf(name), {file.bytes, file.size}};
  }
  return std::nullopt;
}

}  // namespace ddbd::console
