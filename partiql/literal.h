// PartiQL literals: 'string', number, TRUE/FALSE/NULL, `?` parameters, {map}, [list] and
// <<set>>, read into attribute values. Internal to partiql/. Entry points: AtLiteral,
// ReadLiteral.
#pragma once

#include <vector>

#include "model/attribute_value.h"
#include "model/result.h"
#include "partiql/cursor.h"

namespace ddbd::partiql {

// The statement's `?` parameters, taken in order.
struct Parameters {
  const std::vector<AttributeValue>& values;
  size_t next = 0;
};

// Whether a literal starts at the cursor.
bool AtLiteral(const Cursor& in);

// Reads one literal (nested at most DynamoDB's 32 levels), substituting parameters.
Result<AttributeValue> ReadLiteral(Cursor& in, Parameters& parameters, int depth = 0);

}  // namespace ddbd::partiql
