// Causal attention, S = 256, D = 32, its mask spelled as torch-xla spells
// it: iotas compared, the scores selected against a broadcast -inf (which
// the front end folds into a splat constant of the scores' shape).
func.func @main(%q: tensor<256x32xf32>, %k: tensor<256x32xf32>, %v: tensor<256x32xf32>) -> tensor<256x32xf32> {
  %s = kiln.dot_general %q, %k {lhs_contracting_dims = array<i64: 1>, rhs_contracting_dims = array<i64: 1>} : (tensor<256x32xf32>, tensor<256x32xf32>) -> tensor<256x256xf32>
  %r = kiln.iota {iota_dimension = 0 : i64} : tensor<256x256xi32>
  %c = kiln.iota {iota_dimension = 1 : i64} : tensor<256x256xi32>
  %m = kiln.compare %r, %c {direction = "GE"} : (tensor<256x256xi32>, tensor<256x256xi32>) -> tensor<256x256xi1>
  %ninf = kiln.constant dense<0xFF800000> : tensor<f32>
  %nb = kiln.broadcast_in_dim %ninf {dimensions = array<i64>} : (tensor<f32>) -> tensor<256x256xf32>
  %masked = kiln.select %m, %s, %nb : (tensor<256x256xi1>, tensor<256x256xf32>, tensor<256x256xf32>) -> tensor<256x256xf32>
  %init = kiln.constant dense<0xFF800000> : tensor<f32>
  %max = kiln.reduce(%masked, %init) attributes {dimensions = array<i64: 1>} {
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %x = kiln.maximum %a, %b : (tensor<f32>, tensor<f32>) -> tensor<f32>
    kiln.return %x : tensor<f32>
  } : (tensor<256x256xf32>, tensor<f32>) -> tensor<256xf32>
  %mb = kiln.broadcast_in_dim %max {dimensions = array<i64: 0>} : (tensor<256xf32>) -> tensor<256x256xf32>
  %sh = kiln.subtract %masked, %mb : (tensor<256x256xf32>, tensor<256x256xf32>) -> tensor<256x256xf32>
  %e = kiln.exponential %sh : (tensor<256x256xf32>) -> tensor<256x256xf32>
  %zero = kiln.constant dense<0.0> : tensor<f32>
  %sum = kiln.reduce(%e, %zero) attributes {dimensions = array<i64: 1>} {
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %x = kiln.add %a, %b : (tensor<f32>, tensor<f32>) -> tensor<f32>
    kiln.return %x : tensor<f32>
  } : (tensor<256x256xf32>, tensor<f32>) -> tensor<256xf32>
  %sb = kiln.broadcast_in_dim %sum {dimensions = array<i64: 0>} : (tensor<256xf32>) -> tensor<256x256xf32>
  %p = kiln.divide %e, %sb : (tensor<256x256xf32>, tensor<256x256xf32>) -> tensor<256x256xf32>
  %o = kiln.dot_general %p, %v {lhs_contracting_dims = array<i64: 1>, rhs_contracting_dims = array<i64: 0>} : (tensor<256x256xf32>, tensor<256x32xf32>) -> tensor<256x32xf32>
  return %o : tensor<256x32xf32>
}
