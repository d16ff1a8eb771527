// RUN: not kiln run --interpret %s | FileCheck %s

// `close` counts units in the last place exactly, in every width
// (regression: for f64 the distance was computed in double, which cannot
// hold 64 bits, so 1 ULP read as 0 and 4 as 512). -0 and +0 are 0 apart.

// CHECK:      check 1 (close) at {{.*}}: passed, 3 elements, worst 1 ULP
// CHECK-NEXT: check 2 (close) at {{.*}}: FAILED, 1 of 1 elements, worst 4 at []: got 1, want 1
// CHECK-NEXT: check 3 (close) at {{.*}}: passed, 1 element, worst 3 ULP

func.func public @main() {
  %a = stablehlo.constant dense<[1.0, 0x3FF0000000000001, 0x8000000000000000]> : tensor<3xf64>
  %b = stablehlo.constant dense<[0x3FF0000000000001, 1.0, 0.0]> : tensor<3xf64>
  check.expect_close %a, %b, max_ulp_difference = 3 : tensor<3xf64>, tensor<3xf64>
  %c = stablehlo.constant dense<1.0> : tensor<f64>
  %d = stablehlo.constant dense<0x3FF0000000000004> : tensor<f64>
  check.expect_close %c, %d, max_ulp_difference = 3 : tensor<f64>, tensor<f64>
  %e = stablehlo.constant dense<1.0> : tensor<f32>
  %f = stablehlo.constant dense<0x3F800003> : tensor<f32>
  check.expect_close %e, %f, max_ulp_difference = 3 : tensor<f32>, tensor<f32>
  func.return
}
