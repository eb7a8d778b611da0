#include "backends/llvm/diagnostics.h"

#include <llvm/IR/DiagnosticHandler.h>
#include <llvm/IR/DiagnosticInfo.h>
#include <llvm/IR/DiagnosticPrinter.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/Support/raw_ostream.h>

#include "tensorir/error.h"

namespace tensorir::llvm_backend {

namespace {

class KeepErrors : public llvm::DiagnosticHandler {
 public:
  explicit KeepErrors(std::shared_ptr<std::string> errors) : errors_(std::move(errors)) {}
  bool handleDiagnostics(const llvm::DiagnosticInfo &info) override {
    if (info.getSeverity() != llvm::DS_Error) return false;  // warnings and remarks as LLVM handles them
    llvm::raw_string_ostream os(*errors_);
    llvm::DiagnosticPrinterRawOStream printer(os);
    info.print(printer);
    os << "\n";
    return true;
  }

 private:
  std::shared_ptr<std::string> errors_;
};

}  // namespace

std::shared_ptr<std::string> keep_diagnostics(llvm::LLVMContext &ctx) {
  auto errors = std::make_shared<std::string>();
  ctx.setDiagnosticHandler(std::make_unique<KeepErrors>(errors));
  return errors;
}

void throw_if_reported(const std::string &errors, const std::string &what, const std::string &target) {
  if (errors.empty()) return;
  std::string text = errors;
  while (!text.empty() && text.back() == '\n') text.pop_back();
  TIR_THROW() << "cannot compile " << what << " for '" << target << "': LLVM reports: " << text
              << " (check the target's -mcpu and -mattr)";
}

}  // namespace tensorir::llvm_backend
