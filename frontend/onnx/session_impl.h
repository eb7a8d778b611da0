// onnx::Session's state, shared by session.cpp (import and compile per run) and
// session_stages.cpp (models run in stages around nodes that need run-time values).
#pragma once
#include <list>
#include <memory>
#include <optional>
#include <set>

#include "frontend/onnx/control_stage.h"
#include "frontend/onnx/importer.h"
#include "frontend/onnx/stages.h"
#include "tensorir/frontend/onnx.h"

namespace tensorir::onnx {

struct Session::Impl {
  ::onnx::ModelProto model;
  std::string dir, what;
  Target target;
  SessionOptions options;
  std::vector<SessionInput> inputs;
  std::set<std::string> symbolic;      // inputs whose unbound dimensions the given array binds
  std::set<std::string> shape_inputs;  // inputs fixed at import on each run
  std::optional<graph::Graph> imported;  // the graph of a model without shape inputs
  std::list<std::pair<std::string, graph::CompiledModel>> cache;  // most recently used first
  size_t compiles = 0;

  // The stages and their sessions: the one before the boundary made with the split, the
  // one after at the first run (its inputs' types come from the values it is given).
  struct Staged {
    detail::Stages stages;
    std::string boundary;  // "'nms' (NonMaxSuppression), ...": for messages
    std::optional<Session> before, after;
    // The boundary's If and Loop nodes by index, run from sessions of their own.
    std::map<int, std::unique_ptr<detail::ControlStage>> control;
    std::map<std::string, NDArray> constants;  // initializers the boundary reads, decoded once
    // Every session of a stage: before, after and the control nodes' parts.
    size_t count(size_t (Session::*what)() const) const;
  };
  std::shared_ptr<Staged> staged;  // set once the model runs in stages
  struct Restaged {};              // what compile throws when it has just split the model

  Impl(::onnx::ModelProto m, std::string d, std::string w, Target t, SessionOptions o)
      : model(std::move(m)), dir(std::move(d)), what(std::move(w)), target(std::move(t)), options(std::move(o)) {}

  graph::Graph import(const ImportOptions &o) const {
    const std::string &data_dir = o.external_data_dir.empty() ? dir : o.external_data_dir;
    return detail::Importer(model, o, data_dir, what).run();
  }
  const SessionInput *find(const std::string &name) const {
    for (const SessionInput &in : inputs)
      if (in.name == name) return &in;
    return nullptr;
  }
  void list_inputs();
  void probe();
  bool learn(const UnsupportedError &e, bool shapes_bound);
  std::string key(const std::map<std::string, NDArray> &given) const;
  void check_given(const std::map<std::string, NDArray> &given) const;
  graph::CompiledModel compile(const std::map<std::string, NDArray> &given);
  // The compiled model and its feed; none when the model runs in stages.
  std::optional<Prepared> prepared(const std::map<std::string, NDArray> &given);

  // session_stages.cpp
  // Splits the model when `e` refuses nodes for values it computes at run time and every
  // other refusal is one that a run's inputs settle; false, changing nothing, otherwise.
  bool stage(const UnsupportedError &e);
  // A Session of `m`, a part of this model; `own` are inputs of its own that no fixed
  // input of this model's options stands for (a subgraph's inputs may reuse outer names).
  Session sub_session(::onnx::ModelProto m, const std::string &part, const std::vector<std::string> &own = {}) const;
  graph::Outputs run_stages(const std::map<std::string, NDArray> &given);
};

}  // namespace tensorir::onnx
