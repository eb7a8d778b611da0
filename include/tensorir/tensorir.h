// The user-facing API in one include.
#pragma once
#include "tensorir/arith/simplify.h"
#include "tensorir/build.h"
#include "tensorir/error.h"
#include "tensorir/ir/expr.h"
#include "tensorir/ir/op.h"
#include "tensorir/ir/printer.h"
#include "tensorir/lower.h"
#include "tensorir/runtime/module.h"
#include "tensorir/runtime/ndarray.h"
#include "tensorir/target.h"
#include "tensorir/te/schedule.h"
#include "tensorir/te/tensor.h"
