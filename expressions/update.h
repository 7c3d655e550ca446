// Applying a bound UpdateExpression to an item: SET (with +, -, if_not_exists,
// list_append), REMOVE (list elements shift), ADD (numbers, sets), DELETE (from sets).
// Entry point: ApplyUpdate.
#pragma once

#include "expressions/ast.h"
#include "expressions/bindings.h"
#include "model/attribute_value.h"
#include "model/result.h"

namespace ddbd::expressions {

// Returns the updated item. Every right-hand side is evaluated against `item` as it was
// before the update, as DynamoDB does. Fails with DynamoDB's ValidationException for
// operands of the wrong type, missing operands and invalid document paths.
// REQUIRES: `update` was bound to `bindings`.
Result<Item> ApplyUpdate(const UpdateExpression& update, const Bindings& bindings,
                         const AttributeMap& item);

}  // namespace ddbd::expressions
