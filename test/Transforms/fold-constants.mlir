// RUN: kiln-opt --kiln-fold-constants -split-input-file %s | FileCheck %s
// RUN: kiln-opt "--kiln-fold-constants=max-elements=2" -split-input-file %s | FileCheck %s --check-prefix=LIMIT

// Ops on literals are evaluated (with the evaluator's numerics, here an
// integer division by zero and an integer conversion that wraps), folding
// whatever becomes literal in turn; a splat stays a splat at any size;
// iotas, and literals larger than the limit, are not created.

// CHECK-LABEL: func.func @fold
// CHECK-DAG:     %[[A:.*]] = kiln.constant dense<[-1, 3, -24]> : tensor<3xi8>
// CHECK-DAG:     %[[B:.*]] = kiln.constant dense<2.500000e+00> : tensor<1024x1024xf32>
// CHECK-DAG:     %[[I:.*]] = kiln.iota
// CHECK:         return %[[A]], %[[B]], %[[I]]
// LIMIT-LABEL: func.func @fold
// LIMIT:         kiln.convert
// LIMIT:         kiln.constant dense<2.500000e+00> : tensor<1024x1024xf32>
func.func @fold() -> (tensor<3xi8>, tensor<1024x1024xf32>, tensor<4xi32>) {
  %a = kiln.constant dense<[5, 7, 1000]> : tensor<3xi32>
  %b = kiln.constant dense<[0, 2, 1]> : tensor<3xi32>
  %q = kiln.divide %a, %b : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  %c = kiln.convert %q : (tensor<3xi32>) -> tensor<3xi8>
  %s = kiln.constant dense<2.5> : tensor<f32>
  %big = kiln.broadcast_in_dim %s {dimensions = array<i64>} : (tensor<f32>) -> tensor<1024x1024xf32>
  %i = kiln.iota {iota_dimension = 0 : i64} : tensor<4xi32>
  return %c, %big, %i : tensor<3xi8>, tensor<1024x1024xf32>, tensor<4xi32>
}

// -----

// Ops with effects stay.
// CHECK-LABEL: func.func @effects
// CHECK:         kiln.check
func.func @effects() {
  %a = kiln.constant dense<1.0> : tensor<2xf32>
  kiln.check %a, %a {comparison = "eq"} : (tensor<2xf32>, tensor<2xf32>) -> ()
  return
}
