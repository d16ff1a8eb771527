// RUN: kiln-opt --mlir-print-debuginfo --mlir-print-local-scope %s | FileCheck %s
// RUN: kiln-opt --mlir-print-debuginfo %s | kiln-opt --mlir-print-debuginfo --mlir-print-local-scope | FileCheck %s
// RUN: kiln import --debug-info %s | FileCheck %s --check-prefix=KILN
// RUN: not kiln-opt -split-input-file %S/Inputs/hlo-instruction-loc-invalid.mlir 2>&1 | FileCheck %s --check-prefix=BAD

// An imported instruction's location, its dump position and its metadata in
// one attribute (HloLocation.h), prints and parses back, aliases included.

// CHECK: func.func @f(%arg0: tensor<f32> loc(#kiln_hlo.instruction<"a.hlo":3:5, loc("p0"("x.py":1:2))>))
// CHECK: kiln.add {{.*}} loc(#kiln_hlo.instruction<"a.hlo":4:5, loc("add"("x.py":7:0))>)
// CHECK: return {{.*}} loc("a.hlo":5:3)
func.func @f(%a: tensor<f32> loc(#kiln_hlo.instruction<"a.hlo":3:5, loc("p0"("x.py":1:2))>)) -> tensor<f32> {
  %0 = kiln.add %a, %a : (tensor<f32>, tensor<f32>) -> tensor<f32> loc(#kiln_hlo.instruction<"a.hlo":4:5, loc("add"("x.py":7:0))>)
  return %0 : tensor<f32> loc("a.hlo":5:3)
}

// kiln's commands read it too, and print it in builtin form.
// KILN: kiln.add {{.*}} loc([[ADD:#loc[0-9]*]])
// KILN: [[ADD]] = loc(fused[{{#loc[0-9]*}}, {{#loc[0-9]*}}])

// BAD: hlo-instruction-loc-invalid.mlir:3:{{[0-9]+}}: error: expected the metadata's location, loc(...)
// BAD: hlo-instruction-loc-invalid.mlir:7:{{[0-9]+}}: error: unknown kiln_hlo attribute 'bogus'
