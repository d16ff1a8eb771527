// RUN: kiln run --interpret %s | FileCheck %s

// StableHLO's interpreter harness (interpreter.run_parallel, imported as
// kiln.run_parallel) runs programs as a grid of replicas x partitions, and
// collectives read their replica groups by their mode: without a channel
// across replicas (of one partition), with a channel across replicas and
// partitions, with use_global_device_ids by flattened ids. On a 2 x 2 grid
// whose participants hold 1, 2 (replica 0) and 3, 4 (replica 1):
// cross-replica sums 1+3 and 2+4, cross-replica-and-partition 10,
// flattened groups {0,1} and {2,3} give 3 and 7; partition_id and
// replica_id are each participant's place.

// CHECK-NOT: FAILED
// CHECK: 20 of 20 checks passed

func.func @f(%x: tensor<1xi64>) -> (tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<ui32>, tensor<ui32>) {
  %a = "stablehlo.all_reduce"(%x) ({
  ^bb0(%l: tensor<i64>, %r: tensor<i64>):
    %s = stablehlo.add %l, %r : tensor<i64>
    stablehlo.return %s : tensor<i64>
  }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<1xi64>) -> tensor<1xi64>
  %b = "stablehlo.all_reduce"(%x) ({
  ^bb0(%l: tensor<i64>, %r: tensor<i64>):
    %s = stablehlo.add %l, %r : tensor<i64>
    stablehlo.return %s : tensor<i64>
  }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>} : (tensor<1xi64>) -> tensor<1xi64>
  %c = "stablehlo.all_reduce"(%x) ({
  ^bb0(%l: tensor<i64>, %r: tensor<i64>):
    %s = stablehlo.add %l, %r : tensor<i64>
    stablehlo.return %s : tensor<i64>
  }) {replica_groups = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>, use_global_device_ids} : (tensor<1xi64>) -> tensor<1xi64>
  %p = stablehlo.partition_id : tensor<ui32>
  %q = stablehlo.replica_id : tensor<ui32>
  return %a, %b, %c, %p, %q : tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<ui32>, tensor<ui32>
}
func.func @main() {
  %i0 = stablehlo.constant dense<[1]> : tensor<1xi64>
  %i1 = stablehlo.constant dense<[2]> : tensor<1xi64>
  %i2 = stablehlo.constant dense<[3]> : tensor<1xi64>
  %i3 = stablehlo.constant dense<[4]> : tensor<1xi64>
  %r:20 = "interpreter.run_parallel"(%i0, %i1, %i2, %i3) {programs = [[@f, @f], [@f, @f]]} : (tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> (tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<ui32>, tensor<ui32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<ui32>, tensor<ui32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<ui32>, tensor<ui32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<ui32>, tensor<ui32>)
  check.expect_eq_const %r#0, dense<[4]> : tensor<1xi64>
  check.expect_eq_const %r#1, dense<[10]> : tensor<1xi64>
  check.expect_eq_const %r#2, dense<[3]> : tensor<1xi64>
  check.expect_eq_const %r#3, dense<0> : tensor<ui32>
  check.expect_eq_const %r#4, dense<0> : tensor<ui32>
  check.expect_eq_const %r#5, dense<[6]> : tensor<1xi64>
  check.expect_eq_const %r#6, dense<[10]> : tensor<1xi64>
  check.expect_eq_const %r#7, dense<[3]> : tensor<1xi64>
  check.expect_eq_const %r#8, dense<1> : tensor<ui32>
  check.expect_eq_const %r#9, dense<0> : tensor<ui32>
  check.expect_eq_const %r#10, dense<[4]> : tensor<1xi64>
  check.expect_eq_const %r#11, dense<[10]> : tensor<1xi64>
  check.expect_eq_const %r#12, dense<[7]> : tensor<1xi64>
  check.expect_eq_const %r#13, dense<0> : tensor<ui32>
  check.expect_eq_const %r#14, dense<1> : tensor<ui32>
  check.expect_eq_const %r#15, dense<[6]> : tensor<1xi64>
  check.expect_eq_const %r#16, dense<[10]> : tensor<1xi64>
  check.expect_eq_const %r#17, dense<[7]> : tensor<1xi64>
  check.expect_eq_const %r#18, dense<1> : tensor<ui32>
  check.expect_eq_const %r#19, dense<1> : tensor<ui32>
  func.return
}
