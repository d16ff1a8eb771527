// RUN: kiln-opt %s -split-input-file -kiln-check-compilable -verify-diagnostics

// A graph whose constants are all there passes unchanged.
func.func @complete() -> tensor<2xf32> {
  %0 = kiln.constant dense<[1.0, 2.0]> : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// Every elided constant is named, not only the first.
func.func @elided(%a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{the value of this 'tensor<2xf32>' constant was left out of the dump ({...}), so the graph cannot be compiled}}
  %0 = kiln.elided_constant : tensor<2xf32>
  // expected-error @+1 {{the value of this 'tensor<2x2xbf16>' constant was left out of the dump}}
  %1 = kiln.elided_constant : tensor<2x2xbf16>
  %2 = kiln.add %a, %0 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %2 : tensor<2xf32>
}
