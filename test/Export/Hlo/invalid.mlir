// RUN: kiln-translate --export-hlo %s -split-input-file -verify-diagnostics

// Only what HLO can express is exported; anything else is named.

// expected-error @+1 {{no public function to export as ENTRY}}
module {
  func.func private @f() {
    return
  }
}

// -----

module {
  // expected-error @+1 {{element type 'index' has no HLO form}}
  func.func @main(%a: tensor<2xindex>) -> tensor<2xindex> {
    %0 = kiln.negate %a : (tensor<2xindex>) -> tensor<2xindex>
    return %0 : tensor<2xindex>
  }
}

// -----

module {
  func.func @main() {
    // expected-error @+1 {{'func.constant' has no HLO form}}
    %f = func.constant @main : () -> ()
    return
  }
}

// -----

func.func @a() {
  return
}
// expected-error @+1 {{a second public function}}
func.func @b() {
  return
}

// -----

// A dot algorithm that XLA has no name for (StableHLO's fields kept as text).
func.func @main(%a: tensor<2x3xf32>) -> tensor<2x2xf32> {
  // expected-error @+1 {{dot algorithm <lhs_precision_type = "tf32", num_primitive_operations = 2 : i64> has no XLA name, so no HLO form}}
  %0 = kiln.dot_general %a, %a {algorithm = "<lhs_precision_type = \"tf32\", num_primitive_operations = 2 : i64>", lhs_contracting_dims = array<i64: 1>, rhs_contracting_dims = array<i64: 1>} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}
