// RUN: kiln-translate --import-stablehlo %s | FileCheck %s
// RUN: kiln-translate --import-stablehlo %s -o %t.a.mlir
// RUN: kiln-translate --export-hlo %t.a.mlir | FileCheck %s --check-prefix=EXPORT
// RUN: kiln-translate --export-hlo %t.a.mlir -o %t.hlo
// RUN: kiln-translate --import-hlo %t.hlo -o %t.b.mlir
// RUN: diff %t.a.mlir %t.b.mlir

// StableHLO's send gives only a token and its recv the data and a token:
// each is HLO's pair, as XLA translates it (regression: the import built a
// kiln.send with StableHLO's one result and failed its verifier). Several
// values travel as one tuple. The HLO text exported from the import
// imports back to the same module.

// CHECK-LABEL: func.func @main(
func.func @main(%x: tensor<2xf32>, %y: tensor<i32>, %t: !stablehlo.token) -> (tensor<2xf32>, tensor<2xf32>, tensor<i32>, !stablehlo.token) {
  // CHECK: %[[S:.*]]:3 = kiln.send %arg0, %arg2 {channel_id = 1 : i64, is_host_transfer = true} : (tensor<2xf32>, !kiln.token) -> (tensor<2xf32>, tensor<ui32>, !kiln.token)
  // CHECK: %[[SD:.*]] = kiln.send_done %[[S]]#0, %[[S]]#1, %[[S]]#2 {channel_id = 1 : i64, is_host_transfer = true, kiln.operand_tuples = ["(_,_,_)"]}
  // EXPORT: %[[SEND:send.[0-9]+]] = (f32[2]{0}, u32[], token[]) send(%Arg_0.0, %Arg_2.2), channel_id=1, is_host_transfer=true
  // EXPORT: token[] send-done(%[[SEND]]), channel_id=1, is_host_transfer=true
  %s = "stablehlo.send"(%x, %t) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 2>, is_host_transfer = true} : (tensor<2xf32>, !stablehlo.token) -> !stablehlo.token

  // CHECK: %[[S2:.*]]:4 = kiln.send %arg0, %arg1, %[[SD]] {channel_id = 2 : i64, is_host_transfer = true, kiln.operand_tuples = ["(_,_)", "_"], kiln.result_tuple = "((_,_),_,_)"}
  // CHECK: %[[SD2:.*]] = kiln.send_done %[[S2]]#0, %[[S2]]#1, %[[S2]]#2, %[[S2]]#3 {channel_id = 2 : i64, is_host_transfer = true, kiln.operand_tuples = ["((_,_),_,_)"]}
  // EXPORT: ((f32[2]{0}, s32[]), u32[], token[]) send(%tuple.{{[0-9]+}}, %send_done.{{[0-9]+}}), channel_id=2, is_host_transfer=true
  %s2 = "stablehlo.send"(%x, %y, %s) {channel_handle = #stablehlo.channel_handle<handle = 2, type = 2>, is_host_transfer = true} : (tensor<2xf32>, tensor<i32>, !stablehlo.token) -> !stablehlo.token

  // The devices a send goes between are HLO's frontend attribute.
  // CHECK: kiln.send %arg0, %[[SD2]] {channel_id = 5 : i64, kiln.frontend_attributes = {_xla_compute_type = "host", _xla_send_recv_source_target_pairs = "{{\{\{}}0,1},{1,2}}"}}
  // EXPORT: send(%Arg_0.0, %send_done.{{[0-9]+}}), channel_id=5, is_host_transfer=false, frontend_attributes={_xla_compute_type="host", _xla_send_recv_source_target_pairs={{\{\{}}0,1},{1,2}}}
  %s3 = "stablehlo.send"(%x, %s2) {channel_handle = #stablehlo.channel_handle<handle = 5, type = 1>, source_target_pairs = dense<[[0, 1], [1, 2]]> : tensor<2x2xi64>, mhlo.frontend_attributes = {_xla_compute_type = "host"}} : (tensor<2xf32>, !stablehlo.token) -> !stablehlo.token

  // CHECK: %[[R:.*]]:3 = kiln.recv %{{.*}} {channel_id = 3 : i64, is_host_transfer = true} : (!kiln.token) -> (tensor<2xf32>, tensor<ui32>, !kiln.token)
  // CHECK: %[[RD:.*]]:2 = kiln.recv_done %[[R]]#0, %[[R]]#1, %[[R]]#2 {channel_id = 3 : i64, is_host_transfer = true, kiln.operand_tuples = ["(_,_,_)"]} : (tensor<2xf32>, tensor<ui32>, !kiln.token) -> (tensor<2xf32>, !kiln.token)
  // EXPORT: (f32[2]{0}, token[]) recv-done(%recv.{{[0-9]+}}), channel_id=3, is_host_transfer=true
  %r:2 = "stablehlo.recv"(%s3) {channel_handle = #stablehlo.channel_handle<handle = 3, type = 3>, is_host_transfer = true} : (!stablehlo.token) -> (tensor<2xf32>, !stablehlo.token)

  // CHECK: %[[Q:.*]]:4 = kiln.recv %[[RD]]#1 {channel_id = 4 : i64, is_host_transfer = true, kiln.result_tuple = "((_,_),_,_)"}
  // CHECK: %[[QD:.*]]:3 = kiln.recv_done %[[Q]]#0, %[[Q]]#1, %[[Q]]#2, %[[Q]]#3 {channel_id = 4 : i64, is_host_transfer = true, kiln.operand_tuples = ["((_,_),_,_)"], kiln.result_tuple = "((_,_),_)"}
  // EXPORT: ((f32[2]{0}, s32[]), token[]) recv-done(%recv.{{[0-9]+}}), channel_id=4, is_host_transfer=true
  %q:3 = "stablehlo.recv"(%r#1) {channel_handle = #stablehlo.channel_handle<handle = 4, type = 3>, is_host_transfer = true} : (!stablehlo.token) -> (tensor<2xf32>, tensor<i32>, !stablehlo.token)

  // CHECK: return %[[RD]]#0, %[[QD]]#0, %[[QD]]#1, %[[QD]]#2
  return %r#0, %q#0, %q#1, %q#2 : tensor<2xf32>, tensor<2xf32>, tensor<i32>, !stablehlo.token
}
