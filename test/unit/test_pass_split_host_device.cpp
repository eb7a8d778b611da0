// split_host_device on a lowered function built here: the host plan's temporary buffers,
// and one kernel per thread-bound nest with its thread indices and the buffers and
// scalars it uses.
#include <catch2/catch.hpp>

#include "pass_check.h"
#include "tensorir/error.h"
#include "tensorir/ir/op.h"
#include "transforms/split_host_device.h"

using namespace tensorir;

namespace {
Stmt thread(const IterVar &iv, Expr extent, Stmt body) {
  return AttrStmtNode::make(Ref<const Object>(iv.get()), "thread_extent", std::move(extent), std::move(body));
}
LoweredFunc func(Stmt body, std::string name = "f") {
  auto *n = new LoweredFuncNode();
  n->name = std::move(name);
  n->body = std::move(body);
  return LoweredFunc(n);
}
}  // namespace

TEST_CASE("split_host_device: thread-bound nests become kernels, allocations host temporaries", "[pass]") {
  Var A("A", Handle()), B("B", Handle()), T("T", Handle()), n("n");
  IterVar bx = thread_axis("blockIdx.x"), tx = thread_axis("threadIdx.x"), bx2 = thread_axis("blockIdx.x");
  Expr at = bx.var() * 4 + tx.var();
  Stmt k0 = StoreNode::make(T, LoadNode::make(Float(32), A, at) * 2.0f, at);
  Stmt k1 = StoreNode::make(B, LoadNode::make(Float(32), T, bx2.var()), bx2.var() + n);
  Stmt body = AllocateNode::make(T, Float(32), {16}, "global",
                                 BlockNode::make({thread(bx, 4, thread(tx, 4, k0)), thread(bx2, 16, k1)}));
  HostPlan plan = split_host_device(func(body));

  REQUIRE(plan.temps.size() == 1);
  CHECK(plan.temps[0].handle.same_as(T));
  CHECK(plan.temps[0].dtype == Float(32));
  TIR_CHECK_IR(plan.temps[0].elements, Expr(16));

  REQUIRE(plan.kernels.size() == 2);
  const DeviceKernel &first = plan.kernels[0], &second = plan.kernels[1];
  CHECK(first.name == "f_kernel0");
  TIR_CHECK_IR(first.body, k0);
  REQUIRE(first.threads.size() == 2);
  CHECK(first.threads[0].tag == "blockIdx.x");
  CHECK(first.threads[0].var.same_as(bx.var()));
  TIR_CHECK_IR(first.threads[0].extent, Expr(4));
  CHECK(first.threads[1].tag == "threadIdx.x");
  CHECK(first.threads[1].var.same_as(tx.var()));
  REQUIRE(first.buffers.size() == 2);  // in first-use order: the store's buffer, then the load's
  CHECK(first.buffers[0].same_as(T));
  CHECK(first.buffers[1].same_as(A));
  CHECK(first.scalars.empty());

  CHECK(second.name == "f_kernel1");
  TIR_CHECK_IR(second.body, k1);
  REQUIRE(second.threads.size() == 1);
  TIR_CHECK_IR(second.threads[0].extent, Expr(16));
  REQUIRE(second.buffers.size() == 2);
  CHECK(second.buffers[0].same_as(B));
  CHECK(second.buffers[1].same_as(T));
  REQUIRE(second.scalars.size() == 1);
  CHECK(second.scalars[0].same_as(n));
}

TEST_CASE("split_host_device: one thread index bound twice in a kernel uses one variable", "[pass]") {
  Var A("A", Handle());
  IterVar bx = thread_axis("blockIdx.x"), again = thread_axis("blockIdx.x");
  Stmt body = thread(bx, 8, thread(again, 8, StoreNode::make(A, 0.0f, again.var())));
  HostPlan plan = split_host_device(func(body));
  REQUIRE(plan.kernels.size() == 1);
  REQUIRE(plan.kernels[0].threads.size() == 1);
  TIR_CHECK_IR(plan.kernels[0].body, StoreNode::make(A, 0.0f, bx.var()));
}

TEST_CASE("split_host_device: code outside any thread index is an error naming the loop", "[pass]") {
  Var A("A", Handle()), i("i");
  Stmt body = ForNode::make(i, 0, 4, ForKind::Serial, StoreNode::make(A, 0.0f, i));
  CHECK_THROWS_WITH(split_host_device(func(body)), Catch::Contains("loop 'i' runs outside any GPU thread index"));
}

TEST_CASE("split_host_device: code that writes only one-element buffers is a kernel of one invocation", "[pass]") {
  // S[0] = sum of A[0..4): a 0-d result, with no loop to bind.
  Var A("A", Handle()), S("S", Handle()), i("i");
  Stmt body = BlockNode::make({StoreNode::make(S, 0.0f, 0),
                               ForNode::make(i, 0, 4, ForKind::Serial,
                                             StoreNode::make(S, LoadNode::make(Float(32), S, 0) +
                                                                    LoadNode::make(Float(32), A, i), 0))});
  LoweredFunc f = func(body);
  auto *n = const_cast<LoweredFuncNode *>(f.get());
  n->args = {{"A", A, true, Float(32), {Expr(4)}}, {"S", S, true, Float(32), {}}};
  // The two statements (the block is flattened) are two kernels, run in order.
  HostPlan plan = split_host_device(f);
  REQUIRE(plan.kernels.size() == 2);
  CHECK(plan.kernels[0].threads.empty());
  CHECK(plan.kernels[1].threads.empty());
  // Writing A, of four elements, that way is still the error.
  n->body = ForNode::make(i, 0, 4, ForKind::Serial, StoreNode::make(A, 0.0f, i));
  CHECK_THROWS_WITH(split_host_device(f), Catch::Contains("loop 'i' runs outside any GPU thread index"));
}
