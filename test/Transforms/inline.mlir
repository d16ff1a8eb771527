// RUN: kiln-opt --kiln-inline %s | FileCheck %s

// Calls are replaced by the callee's body, nested calls too; private
// functions that nothing calls any more are removed; the entry stays.

// CHECK-LABEL: func.func @main
// CHECK-NEXT:    %[[T:.*]] = kiln.multiply %arg0, %arg0
// CHECK-NEXT:    %[[S:.*]] = kiln.add %[[T]], %arg0
// CHECK-NEXT:    return %[[S]]
// CHECK-NOT:   func.func private
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = call @outer(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @outer(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = call @square(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = kiln.add %0, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
func.func private @square(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = kiln.multiply %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
