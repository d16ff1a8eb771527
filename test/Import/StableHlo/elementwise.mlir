// RUN: kiln-translate --import-stablehlo %s | FileCheck %s

// Element-wise ops in StableHLO's pretty forms (one type for all, a
// function type, select's two types, complex's result type, compare's
// direction and type) and in the generic form, and CHLO's functions, which
// are kiln ops of their own. Attributes JAX attaches stay; the number of
// partitions is HLO's module header field.

// CHECK-LABEL: module @jit_f attributes {kiln.num_partitions = 1 : i64}
// CHECK: func.func public @main(%arg0: tensor<2x3xf32> {kiln.sharding = "{replicated}"}, %arg1: tensor<2x3xf32>, %arg2: tensor<2x3xi1>) -> (tensor<2x3xf32> {jax.result_info = "out"})
module @jit_f attributes {mhlo.num_partitions = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3xf32> {mhlo.sharding = "{replicated}"}, %arg1: tensor<2x3xf32>, %p: tensor<2x3xi1>) -> (tensor<2x3xf32> {jax.result_info = "out"}) {
    // CHECK-NEXT: %0 = kiln.add %arg0, %arg1 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %0 = stablehlo.add %arg0, %arg1 : tensor<2x3xf32>
    // CHECK-NEXT: %1 = kiln.abs %0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %1 = stablehlo.abs %0 : tensor<2x3xf32>
    // CHECK-NEXT: %2 = kiln.compare %1, %arg1 {direction = "GT", type = "FLOAT"}
    %2 = stablehlo.compare  GT, %1, %arg1,  FLOAT : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
    // CHECK-NEXT: %3 = kiln.select %2, %1, %arg1 : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %3 = stablehlo.select %2, %1, %arg1 : tensor<2x3xi1>, tensor<2x3xf32>
    // CHECK-NEXT: %4 = kiln.convert %3 : (tensor<2x3xf32>) -> tensor<2x3xbf16>
    %4 = stablehlo.convert %3 : (tensor<2x3xf32>) -> tensor<2x3xbf16>
    // CHECK-NEXT: %5 = kiln.convert %4 : (tensor<2x3xbf16>) -> tensor<2x3xf32>
    %5 = stablehlo.convert %4 : (tensor<2x3xbf16>) -> tensor<2x3xf32>
    // CHECK-NEXT: %6 = kiln.complex %5, %arg1 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xcomplex<f32>>
    %6 = stablehlo.complex %5, %arg1 : tensor<2x3xcomplex<f32>>
    // CHECK-NEXT: %7 = kiln.real %6 : (tensor<2x3xcomplex<f32>>) -> tensor<2x3xf32>
    %7 = stablehlo.real %6 : (tensor<2x3xcomplex<f32>>) -> tensor<2x3xf32>
    // CHECK-NEXT: %8 = kiln.compare %7, %arg0 {direction = "LT"}
    %8 = "stablehlo.compare"(%7, %arg0) <{comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
    // CHECK-NEXT: %9 = kiln.select %8, %7, %arg0
    %9 = stablehlo.select %8, %7, %arg0 : tensor<2x3xi1>, tensor<2x3xf32>
    // CHECK-NEXT: %10 = kiln.erf_inv %9 : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %10 = chlo.erf_inv %9 : tensor<2x3xf32> -> tensor<2x3xf32>
    // CHECK-NEXT: %11 = kiln.clamp %arg0, %10, %arg1
    %11 = stablehlo.clamp %arg0, %10, %arg1 : tensor<2x3xf32>
    // CHECK-NEXT: %12 = kiln.next_after %11, %arg0 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %12 = chlo.next_after %11, %arg0 : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x3xf32>
    // CHECK-NEXT: %13 = kiln.lgamma %12
    %13 = chlo.lgamma %12 : tensor<2x3xf32> -> tensor<2x3xf32>
    // CHECK-NEXT: %14 = kiln.reduce_precision %13 {exponent_bits = 5 : i64, mantissa_bits = 10 : i64}
    %14 = stablehlo.reduce_precision %13, format = e5m10 : tensor<2x3xf32>
    // CHECK-NEXT: return %14 : tensor<2x3xf32>
    return %14 : tensor<2x3xf32>
  }
}
