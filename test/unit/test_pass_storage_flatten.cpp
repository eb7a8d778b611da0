// storage_flatten on statements built here: tensor accesses become loads and stores at
// row-major flat indices, a realized tensor becomes an allocation of its region.
#include <catch2/catch.hpp>

#include "pass_check.h"
#include "tensorir/error.h"
#include "tensorir/ir/op.h"
#include "transforms/storage_flatten.h"

using namespace tensorir;

namespace {
Stmt provide(const Tensor &t, Expr value, std::vector<Expr> args) {
  return ProvideNode::make(Ref<const Object>(t.op().get()), t.value_index(), t.name(), std::move(value), std::move(args));
}
}  // namespace

TEST_CASE("storage_flatten: multi-dimensional accesses become flat indices", "[pass]") {
  Tensor A = placeholder({4, 8}, Float(32), "A");
  Tensor B = placeholder({4, 8}, Float(32), "B");
  Var a("A", Handle()), b("B", Handle()), i("i"), j("j");
  std::vector<BufferBinding> args{{A, a}, {B, b}};
  auto nest = [&](Stmt body) {
    return ForNode::make(i, 1, 3, ForKind::Serial, ForNode::make(j, 0, 8, ForKind::Serial, std::move(body)));
  };

  SECTION("arguments: index i*8 + j into the argument's buffer") {
    Stmt in = nest(provide(B, A(i, j) + 1.0f, {i, j}));
    Expr flat = AddNode::make(MulNode::make(i, 8), j);
    Stmt expected = nest(StoreNode::make(b, LoadNode::make(Float(32), a, flat) + 1.0f, flat));
    TIR_CHECK_IR(storage_flatten(in, args, "f"), expected);
  }
  SECTION("a realized tensor: an allocation of its region, indexed from the region's start") {
    // T is realized over rows [1, 4) only: T[i, j] is element (i - 1)*8 + j.
    Tensor T = placeholder({4, 8}, Float(32), "T");
    Stmt in = RealizeNode::make(Ref<const Object>(T.op().get()), 0, "T", Float(32),
                                {Range::from_min_extent(1, 3), Range::from_min_extent(0, 8)}, "local",
                                nest(BlockNode::make({provide(T, A(i, j), {i, j}), provide(B, T(i, j), {i, j})})));
    Var t("T", Handle());
    Expr at = AddNode::make(MulNode::make(i, 8), j);
    Expr tat = AddNode::make(MulNode::make(SubNode::make(i, 1), 8), j);
    Stmt expected = AllocateNode::make(
        t, Float(32), {3, 8}, "local",
        nest(BlockNode::make({StoreNode::make(t, LoadNode::make(Float(32), a, at), tat),
                              StoreNode::make(b, LoadNode::make(Float(32), t, tat), at)})));
    TIR_CHECK_IR(storage_flatten(in, args, "f"), expected);
  }
  SECTION("a tensor that is neither an argument nor realized is an error naming it") {
    Tensor C = placeholder({4, 8}, Float(32), "C");
    CHECK_THROWS_WITH(storage_flatten(nest(provide(B, C(i, j), {i, j})), args, "f"),
                      Catch::Contains("reads tensor 'C', which is not one of its arguments"));
  }
}
