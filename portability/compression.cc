// gzip by zlib, zstd by libzstd.
#include "portability/compression.h"

#include <zlib.h>
#include <zstd.h>

#include <memory>

namespace ddbd::portability {
namespace {

constexpr size_t kChunk = 64 * 1024;

Error TooLarge(size_t max_bytes) {
  return Error::Validation("The object decompresses to more than " + std::to_string(max_bytes) +
                           " bytes");
}

Result<std::string> GunzipAll(std::string_view data, size_t max_bytes) {
  std::string out;
  size_t consumed = 0;
  while (consumed < data.size()) {  // one gzip member at a time
    z_stream stream{};
    if (inflateInit2(&stream, 16 + MAX_WBITS) != Z_OK) return Error::Internal("inflateInit2");
    std::unique_ptr<z_stream, int (*)(z_stream*)> end(&stream, inflateEnd);
    stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data() + consumed));
    stream.avail_in = static_cast<uInt>(data.size() - consumed);
    int status = Z_OK;
    while (status != Z_STREAM_END) {
      const size_t used = out.size();
      out.resize(used + kChunk);
      stream.next_out = reinterpret_cast<Bytef*>(out.data() + used);
      stream.avail_out = kChunk;
      status = inflate(&stream, Z_NO_FLUSH);
      out.resize(used + kChunk - stream.avail_out);
      if (status != Z_OK && status != Z_STREAM_END) {
        return Error::Validation("The object is not in GZIP compression");
      }
      if (out.size() > max_bytes) return TooLarge(max_bytes);
      if (status == Z_OK && stream.avail_in == 0 && stream.avail_out != 0) {
        return Error::Validation("The object is a truncated GZIP stream");
      }
    }
    consumed = data.size() - stream.avail_in;
  }
  return out;
}

Result<std::string> UnzstdAll(std::string_view data, size_t max_bytes) {
  std::unique_ptr<ZSTD_DCtx, size_t (*)(ZSTD_DCtx*)> context(ZSTD_createDCtx(), ZSTD_freeDCtx);
  if (!context) return Error::Internal("ZSTD_createDCtx");
  std::string out;
  ZSTD_inBuffer in{data.data(), data.size(), 0};
  size_t pending = 0;  // non-zero: a frame is not complete
  while (in.pos < in.size) {
    const size_t used = out.size();
    out.resize(used + kChunk);
    ZSTD_outBuffer buffer{out.data() + used, kChunk, 0};
    pending = ZSTD_decompressStream(context.get(), &buffer, &in);
    out.resize(used + buffer.pos);
    if (ZSTD_isError(pending)) return Error::Validation("The object is not in ZSTD compression");
    if (out.size() > max_bytes) return TooLarge(max_bytes);
  }
  if (pending != 0) return Error::Validation("The object is a truncated ZSTD stream");
  return out;
}

}  // namespace

std::string GzipCompress(std::string_view data) {
  z_stream stream{};
  deflateInit2(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
  gz_header header{};
  header.os = 0xff;
  deflateSetHeader(&stream, &header);
  std::string out(deflateBound(&stream, data.size()) + 32, '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  stream.avail_in = static_cast<uInt>(data.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  deflate(&stream, Z_FINISH);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  return out;
}

Result<std::string> Decompress(Compression compression, std::string_view data, size_t max_bytes) {
  switch (compression) {
    case Compression::kGzip:
      return GunzipAll(data, max_bytes);
    case Compression::kZstd:
      return UnzstdAll(data, max_bytes);
    case Compression::kNone:
      if (data.size() > max_bytes) return TooLarge(max_bytes);
      return std::string(data);
  }
  return std::string(data);
}

}  // namespace ddbd::portability
