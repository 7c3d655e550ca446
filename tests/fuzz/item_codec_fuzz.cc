// Fuzz target: the stored-item codec (storage/item_codec). The input is a RocksDB value as
// it might be found on disk, corrupt or not. Checks that decoding arbitrary bytes fails with
// an Error or yields an item — no crash, no UB, bounded recursion — and that a decoded item
// round-trips: EncodeItem then DecodeItem gives an equal item and the same size header.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "storage/internal/item_codec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ddbd::storage;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto stored_size = StoredItemSize(bytes);
  auto item = DecodeItem(bytes);
  if (!item.ok()) return 0;
  if (!stored_size.ok()) std::abort();  // a decodable record has a size header
  const std::string encoded = EncodeItem(*item, *stored_size);
  auto again = DecodeItem(encoded);
  if (!again.ok() || !(*again == *item)) std::abort();
  auto again_size = StoredItemSize(encoded);
  if (!again_size.ok() || *again_size != *stored_size) std::abort();
  return 0;
}
