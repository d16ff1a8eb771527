// Ops that HLO has no opcode for (CHLO's functions, quantization, the
// golden tests' checks), quantized values, a dot algorithm, and constants
// whose bits HLO text must keep: what export-roundtrip.test exports.
module @jit_kiln_ops attributes {jax.uses_shape_polymorphism = true, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%x: tensor<4xf32> {mhlo.sharding = "", mhlo.layout_mode = "default"}, %q: tensor<4x!quant.uniform<i8:f32, 5.000000e-01:-2>>, %m: tensor<2x3xf32>) -> (tensor<4xf32> {jax.result_info = "out"}, tensor<4x!quant.uniform<i8:f32, 2.500000e-01>>, tensor<2x2xf32>) {
    %0 = chlo.acosh %x : tensor<4xf32> -> tensor<4xf32>
    %1 = chlo.polygamma %x, %0 : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
    %2 = stablehlo.uniform_quantize %1 : (tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32, 2.500000e-01>>
    %3 = stablehlo.reverse %q, dims = [0] : tensor<4x!quant.uniform<i8:f32, 5.000000e-01:-2>>
    %4 = stablehlo.uniform_dequantize %3 : (tensor<4x!quant.uniform<i8:f32, 5.000000e-01:-2>>) -> tensor<4xf32>
    %5 = stablehlo.dot_general %m, %m, contracting_dims = [1] x [1], algorithm = <lhs_precision_type = tf32, rhs_precision_type = tf32, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 3, allow_imprecise_accumulation = false> : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x2xf32>
    %nan = stablehlo.constant dense<[0xFFFFFFFF, 0x7FC00000, 0x7F800001, 1.0]> : tensor<4xf32>
    %empty = stablehlo.constant dense<3.0> : tensor<2x0xf32>
    %6 = stablehlo.add %4, %nan : tensor<4xf32>
    check.expect_almost_eq %6, %x, tolerance = 1.0e-3 : tensor<4xf32>
    %passed = stablehlo.custom_call @check.eq(%6, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<i1>
    return %6, %2, %5 : tensor<4xf32>, tensor<4x!quant.uniform<i8:f32, 2.500000e-01>>, tensor<2x2xf32>
  }
}
