// RUN: kiln-translate --import-stablehlo %s | FileCheck %s

// StableHLO's if and while regions may use values defined outside them;
// kiln's regions are isolated, as HLO's computations are. An if becomes a
// kiln.conditional whose branches take what they use as operands; a while
// carries what its regions use through the loop, unchanged, as extra
// operands and results that nobody else reads.

// CHECK:      %1 = kiln.conditional(%arg0, %arg1, %arg1) attributes {branch_operand_counts = array<i64: 1, 1>} {
// CHECK-NEXT: ^bb0(%arg3: tensor<f32>):
// CHECK-NEXT:   %4 = kiln.add %arg3, %arg3
// CHECK-NEXT:   kiln.return %4 : tensor<f32>
// CHECK-NEXT: }, {
// CHECK-NEXT: ^bb0(%arg3: tensor<f32>):
// CHECK-NEXT:   kiln.return %arg3 : tensor<f32>
// CHECK:      %3:5 = kiln.while(%2, %1, %arg2, %0, %arg1) {
// CHECK-NEXT: ^bb0(%arg3: tensor<i32>, %arg4: tensor<f32>, %arg5: tensor<i32>, %arg6: tensor<i32>, %arg7: tensor<f32>):
// CHECK-NEXT:   %4 = kiln.compare %arg3, %arg5 {direction = "LT", type = "SIGNED"}
// CHECK-NEXT:   kiln.return %4 : tensor<i1>
// CHECK-NEXT: }, {
// CHECK-NEXT: ^bb0(%arg3: tensor<i32>, %arg4: tensor<f32>, %arg5: tensor<i32>, %arg6: tensor<i32>, %arg7: tensor<f32>):
// CHECK-NEXT:   %4 = kiln.add %arg3, %arg6
// CHECK-NEXT:   %5 = kiln.multiply %arg4, %arg7
// CHECK-NEXT:   kiln.return %4, %5, %arg5, %arg6, %arg7
// CHECK:      return %3#1, %3#0 : tensor<f32>, tensor<i32>
func.func public @main(%p: tensor<i1>, %x: tensor<f32>, %n: tensor<i32>) -> (tensor<f32>, tensor<i32>) {
  %one = stablehlo.constant dense<1> : tensor<i32>
  %0 = "stablehlo.if"(%p) ({
    %s = stablehlo.add %x, %x : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }, {
    stablehlo.return %x : tensor<f32>
  }) : (tensor<i1>) -> tensor<f32>
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %1:2 = stablehlo.while(%i = %c0, %acc = %0) : tensor<i32>, tensor<f32>
    cond {
      %lt = stablehlo.compare  LT, %i, %n,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    } do {
      %next = stablehlo.add %i, %one : tensor<i32>
      %a = stablehlo.multiply %acc, %x : tensor<f32>
      stablehlo.return %next, %a : tensor<i32>, tensor<f32>
    }
  return %1#1, %1#0 : tensor<f32>, tensor<i32>
}
