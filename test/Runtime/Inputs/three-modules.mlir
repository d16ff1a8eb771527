// Three programs in one file, as StableHLO's tests hold them: the second's
// check fails.

func.func @main() {
  %a = stablehlo.constant dense<[-1.0, 2.0]> : tensor<2xf32>
  %r = stablehlo.abs %a : tensor<2xf32>
  check.expect_eq_const %r, dense<[1.0, 2.0]> : tensor<2xf32>
  func.return
}

// -----

func.func @main() {
  %a = stablehlo.constant dense<[3, 4]> : tensor<2xi32>
  %r = stablehlo.add %a, %a : tensor<2xi32>
  check.expect_eq_const %r, dense<[6, 9]> : tensor<2xi32>
  func.return
}

// -----

func.func @main() {
  %a = stablehlo.constant dense<2.0> : tensor<f32>
  %r = stablehlo.multiply %a, %a : tensor<f32>
  check.expect_eq_const %r, dense<4.0> : tensor<f32>
  func.return
}
