// GraphSpace: the hnswlib distance space of a VectorIndex's graphs. A graph element holds
// only its entry's slot number (4 bytes), not a copy of the vector: distances read the
// vectors from the index's own array, so each vector is held in memory once.
//
// A query is passed to hnswlib as a GraphQuery (its first word, kQueryMarker, can be no
// slot). The space's vector array moves when the index's array grows (SetVectors), and a
// graph built outside the index's lock points at a snapshot until it is swapped in.
//
// Thread-safety: Distance may run on many threads at once; SetVectors needs them stopped
// (the index's exclusive lock).
//
// Header-only, and included by vector_index.cc alone: hnswlib's headers define functions that
// are not inline, so only one translation unit of a program may include them.
#pragma once

#include <hnswlib/hnswlib.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>

#include "model/table_def.h"

namespace ddbd::vector {

inline constexpr uint32_t kQueryMarker = UINT32_MAX;

// What a search hands hnswlib as its query point.
struct GraphQuery {
  uint32_t marker = kQueryMarker;
  const float* vector = nullptr;
  float inverse_norm = 1;  // cosine only: 1 / |vector| (0 for a zero vector)
};

class GraphSpace final : public hnswlib::SpaceInterface<float> {
 public:
  GraphSpace(uint32_t dimensions, DistanceFunction distance);
  // `vectors[slot × dimensions]` and, for cosine, `inverse_norms[slot]`.
  void SetVectors(const float* vectors, const float* inverse_norms) {
    vectors_ = vectors;
    inverse_norms_ = inverse_norms;
  }

  size_t get_data_size() override { return sizeof(uint32_t); }
  hnswlib::DISTFUNC<float> get_dist_func() override { return &Distance; }
  void* get_dist_func_param() override { return this; }

 private:
  static float Distance(const void* a, const void* b, const void* space);
  // The vector a graph point stands for, and its inverse norm (cosine).
  const float* VectorOf(const void* point, float& inverse_norm) const;

  const uint32_t dimensions_;
  const bool cosine_;
  // hnswlib's SIMD distance for plain float vectors: squared L2, or 1 − inner product.
  std::unique_ptr<hnswlib::SpaceInterface<float>> floats_;
  hnswlib::DISTFUNC<float> float_distance_;
  void* float_distance_param_;
  const float* vectors_ = nullptr;
  const float* inverse_norms_ = nullptr;
};

// 1 / |vector|, or 0 for a zero vector (which then has cosine distance 1 to everything).
inline float InverseNorm(const float* vector, uint32_t dimensions) {
  double norm = 0;
  for (uint32_t i = 0; i < dimensions; ++i) norm += double{vector[i]} * double{vector[i]};
  return norm > 0 ? static_cast<float>(1.0 / std::sqrt(norm)) : 0.0f;
}

inline GraphSpace::GraphSpace(uint32_t dimensions, DistanceFunction distance)
    : dimensions_(dimensions), cosine_(distance == DistanceFunction::kCosine) {
  if (distance == DistanceFunction::kEuclidean) {
    floats_ = std::make_unique<hnswlib::L2Space>(dimensions);
  } else {
    floats_ = std::make_unique<hnswlib::InnerProductSpace>(dimensions);
  }
  float_distance_ = floats_->get_dist_func();
  float_distance_param_ = floats_->get_dist_func_param();
}

inline const float* GraphSpace::VectorOf(const void* point, float& inverse_norm) const {
  uint32_t slot;
  std::memcpy(&slot, point, sizeof slot);
  if (slot == kQueryMarker) {
    const auto* query = static_cast<const GraphQuery*>(point);
    inverse_norm = query->inverse_norm;
    return query->vector;
  }
  if (cosine_) inverse_norm = inverse_norms_[slot];
  return vectors_ + size_t{slot} * dimensions_;
}

inline float GraphSpace::Distance(const void* a, const void* b, const void* param) {
  const auto& space = *static_cast<const GraphSpace*>(param);
  float inverse_a = 1, inverse_b = 1;
  const float* va = space.VectorOf(a, inverse_a);
  const float* vb = space.VectorOf(b, inverse_b);
  const float distance = space.float_distance_(va, vb, space.float_distance_param_);
  if (!space.cosine_) return distance;
  // 1 − cos = 1 − (a·b)/(|a||b|), from hnswlib's 1 − a·b.
  return 1.0f - (1.0f - distance) * inverse_a * inverse_b;
}

}  // namespace ddbd::vector
