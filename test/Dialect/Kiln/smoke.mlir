// RUN: kiln-opt %s | FileCheck %s
// CHECK-LABEL: func.func @f
func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {
  // CHECK: kiln.add
  %0 = kiln.add %a, %a : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
