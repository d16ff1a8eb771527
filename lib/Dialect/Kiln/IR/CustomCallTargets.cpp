//===- CustomCallTargets.cpp - the custom-call targets kiln knows -*- C++ -*-=//
//
// This file lists the custom-call targets kiln knows, by name: the sharding
// and placement markers of JAX and PyTorch/XLA, and the AWS Neuron targets
// that torch-neuronx emits (what each computes is in CustomCallTargets.h).
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/IR/CustomCallTargets.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/StringMap.h"

using kiln::CustomCallTarget;

std::optional<CustomCallTarget>
kiln::lookupCustomCallTarget(llvm::StringRef name) {
  static const llvm::StringMap<CustomCallTarget> targets = {
      {"Sharding", CustomCallTarget::Identity},
      {"SPMDFullToShardShape", CustomCallTarget::Identity},
      {"SPMDShardToFullShape", CustomCallTarget::Identity},
      {"annotate_device_placement", CustomCallTarget::Identity},
      {"MoveToDevice", CustomCallTarget::Identity},
      {"MoveToHost", CustomCallTarget::Identity},
      {"LayoutConstraint", CustomCallTarget::Identity},
      {"xla.sdy.FuncResultSharding", CustomCallTarget::Identity},
      {"AwsNeuronTransferWithStaticRing", CustomCallTarget::Identity},
      {"TopK", CustomCallTarget::TopK},
      {"AwsNeuronTopK", CustomCallTarget::TopK},
      {"AwsNeuronGelu", CustomCallTarget::Gelu},
      {"AwsNeuronGeluBackward", CustomCallTarget::GeluDerivative},
      {"AwsNeuronGeluApprxTanh", CustomCallTarget::GeluTanh},
      {"AwsNeuronSilu", CustomCallTarget::Silu},
      {"AwsNeuronSiluBackward", CustomCallTarget::SiluDerivative},
      {"AwsNeuronErf", CustomCallTarget::Erf},
      {"AwsNeuronSoftmax", CustomCallTarget::Softmax},
      {"AwsNeuronSoftmaxBackward", CustomCallTarget::SoftmaxBackward},
      {"AwsNeuronRmsNorm", CustomCallTarget::RmsNorm},
      {"AwsNeuronArgMax", CustomCallTarget::ArgMax},
      {"AwsNeuronArgMin", CustomCallTarget::ArgMin},
  };
  auto found = targets.find(name);
  if (found == targets.end())
    return std::nullopt;
  return found->second;
}

mlir::FailureOr<int64_t> kiln::getCustomCallDimension(mlir::Operation *op,
                                                      int64_t rank) {
  auto config = op->getAttrOfType<mlir::StringAttr>("backend_config");
  llvm::StringRef text = config ? config.getValue().trim().trim('"') : "";
  int64_t dimension = rank - 1;
  if (!text.empty() && text.getAsInteger(10, dimension))
    return op->emitError("backend_config '")
           << text << "' must be a dimension number";
  if (dimension < 0)
    dimension += rank;
  if (dimension < 0 || dimension >= rank)
    return op->emitError("dimension ")
           << dimension << " is out of range for rank " << rank;
  return dimension;
}
