// The console's files — its page, style sheet and script (console/web/) — compiled into the
// binary (embed_assets.cmake), so the console works with no file beside ddbd and no network.
// Entry point: FindAsset.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace ddbd::console {

struct Asset {
  std::string_view content_type;
  std::string_view body;
};

// The file `name` under the console's path ("" and "index.html": the page; "console.js",
// "console.css"), or nullopt for a name the console does not have.
std::optional<Asset> FindAsset(std::string_view name);

// One embedded file (embedded_files.cc, generated).
struct EmbeddedFile {
  const char* name;
  const char* bytes;
  size_t size;
};
extern const EmbeddedFile kEmbeddedFiles[];
extern const size_t kEmbeddedFileCount;

}  // namespace ddbd::console
