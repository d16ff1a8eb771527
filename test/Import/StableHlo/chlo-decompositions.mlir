// RUN: kiln-translate --import-stablehlo %s | FileCheck %s

// CHLO ops that are exactly a few kiln ops become those ops: is_inf,
// is_pos_inf and is_neg_inf compare with infinity (is_inf the absolute
// value), conj negates the imaginary part, square multiplies, constant_like
// is a splat constant of its result's type.

// CHECK:      %0 = kiln.constant dense<0x7F800000> : tensor<4xf32>
// CHECK-NEXT: %1 = kiln.abs %arg0 : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: %2 = kiln.compare %1, %0 {direction = "EQ", type = "FLOAT"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
// CHECK-NEXT: %3 = kiln.constant dense<0xFF800000> : tensor<4xf32>
// CHECK-NEXT: %4 = kiln.compare %arg0, %3 {direction = "EQ", type = "FLOAT"}
// CHECK-NEXT: %5 = kiln.constant dense<0x7F800000> : tensor<4xf32>
// CHECK-NEXT: %6 = kiln.compare %arg0, %5 {direction = "EQ", type = "FLOAT"}
// CHECK-NEXT: %7 = kiln.real %arg1 : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
// CHECK-NEXT: %8 = kiln.imag %arg1 : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
// CHECK-NEXT: %9 = kiln.negate %8 : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: %10 = kiln.complex %7, %9 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xcomplex<f32>>
// CHECK-NEXT: %11 = kiln.constant dense<1.000000e+00> : tensor<4xf32>
// CHECK-NEXT: %12 = kiln.multiply %arg0, %arg0 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
func.func public @main(%x: tensor<4xf32>, %c: tensor<4xcomplex<f32>>) -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xcomplex<f32>>, tensor<4xf32>, tensor<4xf32>) {
  %0 = chlo.is_inf %x : tensor<4xf32> -> tensor<4xi1>
  %1 = chlo.is_neg_inf %x : tensor<4xf32> -> tensor<4xi1>
  %2 = chlo.is_pos_inf %x : tensor<4xf32> -> tensor<4xi1>
  %3 = chlo.conj %c : tensor<4xcomplex<f32>> -> tensor<4xcomplex<f32>>
  %4 = "chlo.constant_like"(%x) {value = 1.0 : f32} : (tensor<4xf32>) -> tensor<4xf32>
  %5 = chlo.square %x : tensor<4xf32> -> tensor<4xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xcomplex<f32>>, tensor<4xf32>, tensor<4xf32>
}
