// RUN: kiln-opt --convert-kiln-to-linalg -split-input-file -verify-diagnostics %s

// An op the backend does not lower is named at its place.
func.func @stochastic_convert(%a: tensor<4xf32>, %r: tensor<4xui32>) -> tensor<4xbf16> {
  // expected-error @+1 {{failed to legalize operation 'kiln.stochastic_convert'}}
  %0 = kiln.stochastic_convert %a, %r : (tensor<4xf32>, tensor<4xui32>) -> tensor<4xbf16>
  return %0 : tensor<4xbf16>
}

// -----

// So is an element type it does not compute.
func.func @complex_remainder(%a: tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>> {
  // expected-error @+2 {{kiln.remainder on element type 'complex<f32>' is not compiled by the CPU backend}}
  // expected-error @+1 {{failed to legalize operation 'kiln.remainder'}}
  %0 = kiln.remainder %a, %a : (tensor<4xcomplex<f32>>, tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>>
  return %0 : tensor<4xcomplex<f32>>
}

// -----

// And an op in a reducer that is not element-wise.
func.func @reduce_with_dot(%a: tensor<4xf32>) -> tensor<f32> {
  %init = kiln.constant dense<0.0> : tensor<f32>
  // expected-error @+1 {{failed to legalize operation 'kiln.reduce'}}
  %0 = kiln.reduce(%a, %init) attributes {dimensions = array<i64: 0>} {
  ^bb0(%acc: tensor<f32>, %x: tensor<f32>):
    // expected-error @+1 {{kiln.dot_general in a region is not compiled by the CPU backend}}
    %d = kiln.dot_general %acc, %x : (tensor<f32>, tensor<f32>) -> tensor<f32>
    kiln.return %d : tensor<f32>
  } : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}
