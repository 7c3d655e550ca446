// The distance functions of vector search, computed exactly (spec/vector-search.md §8.2).
#include <algorithm>
#include <cfloat>
#include <cmath>

#include "vector/vector_index.h"

namespace ddbd::vector {

double Score(DistanceFunction function, std::span<const float> query, std::span<const float> v) {
  double result = 0;
  switch (function) {
    case DistanceFunction::kCosine: {
      double dot = 0, query_norm = 0, norm = 0;
      for (size_t i = 0; i < v.size(); ++i) {
        dot += double{query[i]} * double{v[i]};
        query_norm += double{query[i]} * double{query[i]};
        norm += double{v[i]} * double{v[i]};
      }
      if (query_norm == 0 || norm == 0) return 1.0;
      result = 1.0 - dot / (std::sqrt(query_norm) * std::sqrt(norm));
      result = std::clamp(result, 0.0, 2.0);
      if (result < 1e-12) result = 0;  // the same direction, up to rounding
      break;
    }
    case DistanceFunction::kEuclidean: {
      double sum = 0;
      for (size_t i = 0; i < v.size(); ++i) {
        const double d = double{query[i]} - double{v[i]};
        sum += d * d;
      }
      result = std::sqrt(sum);
      break;
    }
    case DistanceFunction::kDotProduct: {
      for (size_t i = 0; i < v.size(); ++i) result += double{query[i]} * double{v[i]};
      break;
    }
  }
  // Scores carry float precision and saturate at the float range, as DynamoDB's do.
  result = std::clamp(result, -double{FLT_MAX}, double{FLT_MAX});
  return static_cast<double>(static_cast<float>(result));
}

bool Better(DistanceFunction function, double a, double b) {
  return function == DistanceFunction::kDotProduct ? a > b : a < b;
}

}  // namespace ddbd::vector
