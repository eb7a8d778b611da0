// An If or Loop whose condition or trip count the model computes at run time, run by a
// staged onnx::Session between its stages: each branch, or the body, is a Session of its
// own, compiled once per shape of what it reads and run as the node decides (the branch
// the condition picks; the body once per iteration). Without it the node is converted on
// the host with this run's values, which compiles anew on every run.
#pragma once
#include <onnx/onnx_pb.h>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tensorir/frontend/onnx.h"

namespace tensorir::onnx::detail {

class ControlStage {
 public:
  // Makes the Session of a part (a branch or the body) as a model, named for messages;
  // `own` are the part's own inputs, which no input of the model around it fixes.
  using MakeSession =
      std::function<Session(::onnx::ModelProto, const std::string &part, const std::vector<std::string> &own)>;

  // Whether `n` is an If or a Loop, which this runs.
  static bool handles(const ::onnx::NodeProto &n);
  // Node `n` of model `m` (its main graph); `make` makes the parts' sessions.
  ControlStage(const ::onnx::ModelProto &m, const ::onnx::NodeProto &n, MakeSession make);
  ~ControlStage();

  // The node's outputs by name from `reads`, which holds every value the node reads
  // (names_read); none when the node is to be converted on the host instead: a loop
  // whose loop-carried values change shape from one iteration to the next, or whose body
  // compiles more models in one run than its sessions keep (it needs the iteration number
  // known to compile, say, in a loop longer than their caches), or a part no Session
  // takes: from then on, on every run. Only for this
  // run: a loop of no iterations whose scan outputs are read (their shapes unknown), or a
  // part that reads an empty array.
  std::optional<std::map<std::string, NDArray>> run(const std::map<std::string, NDArray> &reads);

  // The sum of `count` (Session::compiles or Session::cached) over its parts' sessions.
  size_t total(size_t (Session::*count)() const) const;
  // Why the last run said none ("" when it did not).
  const std::string &why_on_host() const { return why_; }

 private:
  struct Part;
  std::optional<std::vector<NDArray>> run_part(Part &part, const std::map<std::string, NDArray> &values);
  std::optional<std::map<std::string, NDArray>> run_if(const std::map<std::string, NDArray> &reads);
  std::optional<std::map<std::string, NDArray>> run_loop(const std::map<std::string, NDArray> &reads);

  ::onnx::NodeProto node_;
  std::string label_;  // "node 'name' (Loop)"
  MakeSession make_;
  std::vector<std::unique_ptr<Part>> parts_;  // If: then, else; Loop: the body
  bool on_host_ = false;
  bool this_run_only_ = false;  // the last run's none was for that run alone
  std::string why_;
};

}  // namespace tensorir::onnx::detail
