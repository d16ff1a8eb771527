// RUN: kiln-translate --export-hlo %s | FileCheck %s
// RUN: kiln-translate --export-hlo %s | kiln-translate --import-hlo | kiln-opt | FileCheck %s --check-prefix=ROUNDTRIP

// Several results come back as a tuple with one get-tuple-element each;
// while state is packed into one tuple parameter; reducers take one
// parameter per block argument; callees are printed before their callers.

module @export_ops attributes {kiln.num_partitions = 8 : i64, kiln.replica_count = 1 : i64} {
  // CHECK-LABEL: HloModule export_ops, num_partitions=8, replica_count=1

  // CHECK: %helper{{.*}} (Arg_0.{{[0-9]+}}: f32[4]{0}) -> f32[4]{0} {
  // CHECK: ROOT %negate.{{[0-9]+}} = f32[4]{0} negate(
  func.func private @helper(%x: tensor<4xf32>) -> tensor<4xf32> {
    %0 = kiln.negate %x : (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }

  // CHECK: %reduce_region{{.*}} (Arg_0.{{[0-9]+}}: f32[], Arg_1.{{[0-9]+}}: f32[]) -> f32[] {
  // CHECK: %while_region{{.*}} (arg_tuple.{{[0-9]+}}: (s32[], f32[4]{0})) -> pred[] {
  // CHECK: %while_region{{.*}} (arg_tuple.{{[0-9]+}}: (s32[], f32[4]{0})) -> (s32[], f32[4]{0}) {
  // CHECK: ENTRY %main
  func.func @main(%a: tensor<4xf32> {kiln.sharding = "{replicated}"}, %n: tensor<i32>) -> (tensor<f32>, tensor<4xf32>) {
    // CHECK: %Arg_0.{{[0-9]+}} = f32[4]{0} parameter(0), sharding={replicated}
    // CHECK: %call.{{[0-9]+}} = f32[4]{0} call(%Arg_0.{{[0-9]+}}), to_apply=%helper
    %c = func.call @helper(%a) : (tensor<4xf32>) -> tensor<4xf32>
    // CHECK: %constant.{{[0-9]+}} = f32[] constant(0)
    %zero = kiln.constant dense<0.0> : tensor<f32>
    // CHECK: %reduce.{{[0-9]+}} = f32[] reduce(%call.{{[0-9]+}}, %constant.{{[0-9]+}}), dimensions={0}, to_apply=%reduce_region
    %r = kiln.reduce(%c, %zero) attributes {dimensions = array<i64: 0>} {
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %s = kiln.add %x, %y : (tensor<f32>, tensor<f32>) -> tensor<f32>
      kiln.return %s : tensor<f32>
    } : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
    // CHECK: %tuple.{{[0-9]+}} = (s32[], f32[4]{0}) tuple(%Arg_1.{{[0-9]+}}, %call.{{[0-9]+}})
    // CHECK: %while.{{[0-9]+}} = (s32[], f32[4]{0}) while(%tuple.{{[0-9]+}}), condition=%while_region{{.*}}, body=%while_region
    // Only the results used alone are taken out of the tuple.
    // CHECK-NOT: get-tuple-element(%while.{{[0-9]+}}), index=0
    // CHECK: get-tuple-element(%while.{{[0-9]+}}), index=1
    %w:2 = kiln.while(%n, %c) {
    ^bb0(%i: tensor<i32>, %v: tensor<4xf32>):
      %p = kiln.compare %i, %i {direction = "LT"} : (tensor<i32>, tensor<i32>) -> tensor<i1>
      kiln.return %p : tensor<i1>
    }, {
    ^bb0(%i: tensor<i32>, %v: tensor<4xf32>):
      kiln.return %i, %v : tensor<i32>, tensor<4xf32>
    } : (tensor<i32>, tensor<4xf32>) -> (tensor<i32>, tensor<4xf32>)
    // CHECK: ROOT %tuple.{{[0-9]+}} = (f32[], f32[4]{0}) tuple(%reduce.{{[0-9]+}}, %get-tuple-element.{{[0-9]+}})
    return %r, %w#1 : tensor<f32>, tensor<4xf32>
  }
}

// ROUNDTRIP: module @export_ops attributes {kiln.num_partitions = 8 : i64, kiln.replica_count = 1 : i64}
// ROUNDTRIP: func.func @main(%{{.*}}: tensor<4xf32> {kiln.sharding = "{replicated}"}, %{{.*}}: tensor<i32>)
// ROUNDTRIP: call @helper
// ROUNDTRIP: kiln.reduce
// ROUNDTRIP: kiln.while
// ROUNDTRIP: func.func private @helper
