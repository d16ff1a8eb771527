// RUN: %python %S/../Signature/Inputs/exit-code.py kiln run --interpret %s | FileCheck %s

// Programs that do not run the same collectives fail instead of waiting
// forever (regression: a participant that ended left the others waiting):
// @a all-reduces, @b returns at once.

// CHECK: run-parallel-mismatch.mlir:11:8: error: another participant failed, or finished without reaching 'kiln.all_reduce' (do the programs run the same collectives?)
// CHECK: exit code: 2

func.func @a(%x: tensor<2xi64>) -> tensor<2xi64> {
  %0 = "stablehlo.all_reduce"(%x) ({
  ^bb0(%l: tensor<i64>, %r: tensor<i64>):
    %s = stablehlo.add %l, %r : tensor<i64>
    stablehlo.return %s : tensor<i64>
  }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2xi64>) -> tensor<2xi64>
  return %0 : tensor<2xi64>
}
func.func @b(%x: tensor<2xi64>) -> tensor<2xi64> {
  return %x : tensor<2xi64>
}
func.func @main() {
  %i = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
  %r:2 = "interpreter.run_parallel"(%i, %i) {programs = [[@a], [@b]]} : (tensor<2xi64>, tensor<2xi64>) -> (tensor<2xi64>, tensor<2xi64>)
  check.expect_eq_const %r#0, dense<[2, 4]> : tensor<2xi64>
  func.return
}
