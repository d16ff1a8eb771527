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
