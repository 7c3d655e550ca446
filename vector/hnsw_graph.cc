// HnswGraph: an hnswlib graph whose elements are labelled by slot and hold the vectors.
#include "vector/hnsw_graph.h"

#include <hnswlib/hnswlib.h>

#include <algorithm>
#include <cmath>
#include <type_traits>
#ifdef __x86_64__
#ifndef NO_MANUAL_VECTORIZATION
#include <immintrin.h>
#define DDBD_AVX2_DISTANCES 1
#endif
#endif

namespace ddbd::vector {

namespace {

using Graph = hnswlib::HierarchicalNSW<float>;

#ifdef DDBD_AVX2_DISTANCES
// hnswlib 0.6.2 picks its AVX kernels at compile time only (-mavx), which a portable binary
// cannot assume; these are chosen at run time instead, on processors with AVX2 and FMA: 8
// floats per instruction where hnswlib's SSE kernels take 4 (measured in docs/PERFORMANCE.md,
// "Vector search"). `dimensions` points at a size_t, as hnswlib's do.
__attribute__((target("avx2,fma"))) float HorizontalSum(__m256 v) {
  const __m128 half = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  const __m128 quarter = _mm_add_ps(half, _mm_movehl_ps(half, half));
  return _mm_cvtss_f32(_mm_add_ss(quarter, _mm_shuffle_ps(quarter, quarter, 1)));
}

// One lane step: adds (a − b)² (squared L2) or a·b (inner product) to `sum`.
template <bool kSquaredL2>
__attribute__((target("avx2,fma"))) inline __m256 Accumulate(__m256 a, __m256 b, __m256 sum) {
  if constexpr (kSquaredL2) {
    const __m256 d = _mm256_sub_ps(a, b);
    return _mm256_fmadd_ps(d, d, sum);
  }
  return _mm256_fmadd_ps(a, b, sum);
}

// Σ (x − y)² or Σ x·y over the `*dimensions` floats, two accumulators wide.
template <bool kSquaredL2>
__attribute__((target("avx2,fma"))) float SumAvx2(const void* a, const void* b,
                                                  const void* dimensions) {
  const auto* x = static_cast<const float*>(a);
  const auto* y = static_cast<const float*>(b);
  const size_t n = *static_cast<const size_t*>(dimensions);
  __m256 sum0 = _mm256_setzero_ps(), sum1 = _mm256_setzero_ps();
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    sum0 = Accumulate<kSquaredL2>(_mm256_loadu_ps(x + i), _mm256_loadu_ps(y + i), sum0);
    sum1 = Accumulate<kSquaredL2>(_mm256_loadu_ps(x + i + 8), _mm256_loadu_ps(y + i + 8), sum1);
  }
  for (; i + 8 <= n; i += 8) {
    sum0 = Accumulate<kSquaredL2>(_mm256_loadu_ps(x + i), _mm256_loadu_ps(y + i), sum0);
  }
  float total = HorizontalSum(_mm256_add_ps(sum0, sum1));
  for (; i < n; ++i) total += kSquaredL2 ? (x[i] - y[i]) * (x[i] - y[i]) : x[i] * y[i];
  return total;
}

float SquaredL2Avx2(const void* a, const void* b, const void* dimensions) {
  return SumAvx2<true>(a, b, dimensions);
}

// 1 − a·b, as hnswlib's InnerProductDistance.
float InnerProductDistanceAvx2(const void* a, const void* b, const void* dimensions) {
  return 1.0f - SumAvx2<false>(a, b, dimensions);
}

bool HasAvx2() { return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"); }
#endif

// A space of plain float vectors: hnswlib's (squared L2, or 1 − a·b), with the AVX2 kernel
// where the processor has it.
template <typename HnswlibSpace>
class FloatSpace final : public hnswlib::SpaceInterface<float> {
 public:
  explicit FloatSpace(uint32_t dimensions) : inner_(dimensions), dimensions_(dimensions) {
    distance_ = inner_.get_dist_func();
    param_ = inner_.get_dist_func_param();
#ifdef DDBD_AVX2_DISTANCES
    if (HasAvx2()) {
      distance_ = std::is_same_v<HnswlibSpace, hnswlib::L2Space> ? &SquaredL2Avx2
                                                                 : &InnerProductDistanceAvx2;
      param_ = &dimensions_;
    }
#endif
  }
  size_t get_data_size() override { return inner_.get_data_size(); }
  hnswlib::DISTFUNC<float> get_dist_func() override { return distance_; }
  void* get_dist_func_param() override { return param_; }

 private:
  HnswlibSpace inner_;
  size_t dimensions_;
  hnswlib::DISTFUNC<float> distance_;
  void* param_;
};

// Cosine elements are the vector's floats followed by 1/|v| (0 for a zero vector): the
// distance 1 − (a·b)/(|a||b|) comes from hnswlib's SIMD 1 − a·b, and the element keeps the
// vector as written, which exact scoring reads.
class CosineSpace final : public hnswlib::SpaceInterface<float> {
 public:
  explicit CosineSpace(uint32_t dimensions) : inner_(dimensions) {
    param_ = {dimensions, inner_.get_dist_func(), inner_.get_dist_func_param()};
  }
  size_t get_data_size() override { return (param_.dimensions + 1) * sizeof(float); }
  hnswlib::DISTFUNC<float> get_dist_func() override { return &Distance; }
  void* get_dist_func_param() override { return &param_; }

 private:
  struct Param {
    size_t dimensions;
    hnswlib::DISTFUNC<float> inner;  // 1 − a·b over the first `dimensions` floats
    void* inner_param;
  };
  static float Distance(const void* a, const void* b, const void* p) {
    const auto& param = *static_cast<const Param*>(p);
    const float dot = 1.0f - param.inner(a, b, param.inner_param);
    return 1.0f - dot * static_cast<const float*>(a)[param.dimensions] *
                      static_cast<const float*>(b)[param.dimensions];
  }
  FloatSpace<hnswlib::InnerProductSpace> inner_;
  Param param_{};
};

std::unique_ptr<hnswlib::SpaceInterface<float>> MakeSpace(const GraphShape& shape) {
  switch (shape.distance) {
    case DistanceFunction::kEuclidean:
      return std::make_unique<FloatSpace<hnswlib::L2Space>>(shape.dimensions);
    case DistanceFunction::kCosine:
      return std::make_unique<CosineSpace>(shape.dimensions);
    case DistanceFunction::kDotProduct:
      break;
  }
  return std::make_unique<FloatSpace<hnswlib::InnerProductSpace>>(shape.dimensions);  // 1 − a·b
}

constexpr hnswlib::labeltype kNoSlot = hnswlib::labeltype{1} << 40;  // above every slot

}  // namespace

struct HnswGraph::Parts {
  GraphShape shape;
  std::unique_ptr<hnswlib::SpaceInterface<float>> space;  // outlives the graph using it
  std::unique_ptr<Graph> graph;
  std::vector<uint32_t> entry_points;  // element numbers

  // The element form of `vector`: the floats (cosine: and 1/|v|) in `buffer`, or in place.
  const float* Point(std::span<const float> vector, std::vector<float>& buffer) const {
    if (shape.distance != DistanceFunction::kCosine) return vector.data();
    buffer.assign(vector.begin(), vector.end());
    double norm = 0;
    for (float f : vector) norm += double{f} * double{f};
    buffer.push_back(norm > 0 ? static_cast<float>(1.0 / std::sqrt(norm)) : 0.0f);
    return buffer.data();
  }
  float Distance(const float* point, uint32_t element) const {
    return graph->fstdistfunc_(point, graph->getDataByInternalId(element), graph->dist_func_param_);
  }
  // The end of hnswlib's greedy descent from its entry point through the upper levels.
  uint32_t Descend(const float* point, float& distance) const;
};

HnswGraph::HnswGraph(std::unique_ptr<Parts> parts) : parts_(std::move(parts)) {}

HnswGraph::HnswGraph(const GraphShape& shape, size_t capacity) : parts_(std::make_unique<Parts>()) {
  parts_->shape = shape;
  parts_->space = MakeSpace(shape);
  parts_->graph = std::make_unique<Graph>(parts_->space.get(), std::max<size_t>(capacity, 1024),
                                          shape.degree, shape.ef_construction);
  parts_->graph->setEf(shape.ef_search);
}

std::unique_ptr<HnswGraph> HnswGraph::Load(const GraphShape& shape, const std::string& path,
                                           size_t capacity) {
  auto parts = std::make_unique<Parts>();
  parts->shape = shape;
  parts->space = MakeSpace(shape);
  try {
    parts->graph = std::make_unique<Graph>(parts->space.get(), path, false, capacity);
  } catch (const std::exception&) {
    return nullptr;  // unreadable: the partition builds its graph anew
  }
  Graph& graph = *parts->graph;
  // Elements of another layout (another distance's, or vectors without the cosine norm)
  // are not read as this one's.
  if (graph.size_data_per_element_ !=
      graph.size_links_level0_ + parts->space->get_data_size() + sizeof(hnswlib::labeltype)) {
    return nullptr;
  }
  // hnswlib 0.6.2's loading constructor never zeroes num_deleted_ before adding the saved
  // deletions to it, so count them again. (Found by UBSan: the garbage count made
  // GraphSearch's fetch size overflow. Pinned by: asan.VectorIndexTest.
  // SavedGraphsAttachToTheSameEntriesLoadedInAnotherOrder.)
  graph.num_deleted_ = 0;
  for (hnswlib::tableint i = 0; i < graph.cur_element_count; ++i) {
    graph.num_deleted_ += graph.isMarkedDeleted(i);
  }
  graph.setEf(shape.ef_search);
  return std::unique_ptr<HnswGraph>(new HnswGraph(std::move(parts)));
}

HnswGraph::~HnswGraph() = default;

uint32_t HnswGraph::Add(std::span<const float> vector, uint32_t slot) {
  Graph& graph = *parts_->graph;
  if (graph.cur_element_count >= graph.max_elements_) {
    graph.resizeIndex(std::max<size_t>(graph.max_elements_ * 2, 1024));
  }
  std::vector<float> buffer;
  return graph.addPoint(parts_->Point(vector, buffer), slot, -1);
}

bool HnswGraph::Retire(uint32_t slot) {
  Graph& graph = *parts_->graph;
  auto element = graph.label_lookup_.find(slot);
  if (element == graph.label_lookup_.end()) return false;
  if (!graph.isMarkedDeleted(element->second)) graph.markDeletedInternal(element->second);
  return true;
}

void HnswGraph::ChooseEntryPoints() {
  // Every n-th element, about 2·√size of them (64 to 1,024): enough that every sizeable
  // cluster of the data holds some, few enough that scoring them all is a small part of a
  // search (~25 µs for 632 at 128 dimensions).
  const size_t size = parts_->graph->cur_element_count;
  const size_t wanted =
      std::clamp<size_t>(static_cast<size_t>(2 * std::sqrt(static_cast<double>(size))), 64, 1024);
  const size_t step = std::max<size_t>(1, size / wanted);
  parts_->entry_points.clear();
  for (size_t id = 0; id < size; id += step) {
    parts_->entry_points.push_back(static_cast<uint32_t>(id));
  }
}

uint32_t HnswGraph::Parts::Descend(const float* point, float& distance) const {
  uint32_t entry = graph->enterpoint_node_;
  distance = Distance(point, entry);
  for (int level = graph->maxlevel_; level > 0; --level) {
    for (bool moved = true; moved;) {
      moved = false;
      const hnswlib::linklistsizeint* links = graph->get_linklist(entry, level);
      const auto* neighbours = reinterpret_cast<const hnswlib::tableint*>(links + 1);
      for (size_t i = 0, n = *links & 0xFFFF; i < n; ++i) {  // hnswlib's getListCount
        const float d = Distance(point, neighbours[i]);
        if (d < distance) {
          distance = d;
          entry = neighbours[i];
          moved = true;
        }
      }
    }
  }
  return entry;
}

std::vector<uint32_t> HnswGraph::Nearest(std::span<const float> query, size_t count) const {
  const Graph& graph = *parts_->graph;
  if (graph.cur_element_count == 0) return {};
  std::vector<float> buffer;
  const float* point = parts_->Point(query, buffer);
  float entry_distance = 0;
  uint32_t entry = parts_->Descend(point, entry_distance);
  for (uint32_t id : parts_->entry_points) {
    const float d = parts_->Distance(point, id);
    if (d < entry_distance) {
      entry_distance = d;
      entry = id;
    }
  }
  const size_t ef = std::max(graph.ef_, count);
  auto top = graph.num_deleted_ > 0 ? graph.searchBaseLayerST<true>(entry, point, ef)
                                    : graph.searchBaseLayerST<false>(entry, point, ef);
  while (top.size() > count) top.pop();
  std::vector<uint32_t> slots;
  slots.reserve(top.size());
  for (; !top.empty(); top.pop()) {
    slots.push_back(static_cast<uint32_t>(graph.getExternalLabel(top.top().second)));
  }
  return slots;
}

const float* HnswGraph::VectorOf(uint32_t element) const {
  return reinterpret_cast<const float*>(parts_->graph->getDataByInternalId(element));
}

size_t HnswGraph::size() const { return parts_->graph->cur_element_count; }

size_t HnswGraph::deleted() const { return parts_->graph->num_deleted_; }

std::optional<uint32_t> HnswGraph::SlotOf(uint32_t element) const {
  const hnswlib::labeltype label = parts_->graph->getExternalLabel(element);
  if (label >= kNoSlot || parts_->graph->isMarkedDeleted(element)) return std::nullopt;
  return static_cast<uint32_t>(label);
}

void HnswGraph::Relabel(const std::vector<std::optional<uint32_t>>& slots) {
  Graph& graph = *parts_->graph;
  graph.label_lookup_.clear();
  for (hnswlib::tableint i = 0; i < graph.cur_element_count; ++i) {
    const std::optional<uint32_t> slot = i < slots.size() ? slots[i] : std::nullopt;
    if (slot) {
      if (graph.isMarkedDeleted(i)) graph.unmarkDeletedInternal(i);
      graph.setExternalLabel(i, *slot);
    } else {
      if (!graph.isMarkedDeleted(i)) graph.markDeletedInternal(i);
      graph.setExternalLabel(i, kNoSlot + i);  // labels no slot can have, one per element
    }
    graph.label_lookup_[graph.getExternalLabel(i)] = i;
  }
}

void HnswGraph::SaveTo(const std::string& path) const { parts_->graph->saveIndex(path); }

}  // namespace ddbd::vector
