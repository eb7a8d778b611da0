// The optimisation pipeline run on every module before it is JIT-compiled.
#include <llvm/Passes/PassBuilder.h>

#include "backends/llvm/target_machine.h"

namespace tensorir::llvm_backend {

void optimize_module(llvm::Module &m, llvm::TargetMachine &tm) {
  // Declared in this order so that they are destroyed in the reverse one.
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;

  llvm::PipelineTuningOptions pto;
  pto.LoopVectorization = true;
  pto.SLPVectorization = true;
  pto.LoopUnrolling = true;
  pto.LoopInterleaving = true;
  // With the TargetMachine, the function analyses include its TargetIRAnalysis (costs,
  // register widths) that the vectorizers and unroller consult.
  llvm::PassBuilder pb(&tm, pto);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager mpm = pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
  mpm.run(m, mam);
}

}  // namespace tensorir::llvm_backend
