// RUN: kiln-opt --kiln-dce %s | FileCheck %s

// A dead chain goes in one sweep, inside regions too; ops with effects and
// what they use stay.

// CHECK-LABEL: func.func @main
// CHECK-NOT:     kiln.iota
// CHECK:         %[[C:.*]] = kiln.constant dense<1.000000e+00>
// CHECK-NEXT:    kiln.check %[[C]], %[[C]]
// CHECK:         kiln.while
// CHECK-NOT:     kiln.negate
// CHECK:         return
func.func @main(%x: tensor<i32>) -> tensor<i32> {
  %rows = kiln.iota {iota_dimension = 0 : i64} : tensor<8x8xi32>
  %columns = kiln.iota {iota_dimension = 1 : i64} : tensor<8x8xi32>
  %dead = kiln.compare %rows, %columns {direction = "GE"} : (tensor<8x8xi32>, tensor<8x8xi32>) -> tensor<8x8xi1>
  %one = kiln.constant dense<1.0> : tensor<2xf32>
  kiln.check %one, %one {comparison = "eq"} : (tensor<2xf32>, tensor<2xf32>) -> ()
  %0 = kiln.while(%x) {
  ^bb0(%i: tensor<i32>):
    %limit = kiln.constant dense<4> : tensor<i32>
    %more = kiln.compare %i, %limit {direction = "LT"} : (tensor<i32>, tensor<i32>) -> tensor<i1>
    kiln.return %more : tensor<i1>
  }, {
  ^bb0(%i: tensor<i32>):
    %unused = kiln.negate %i : (tensor<i32>) -> tensor<i32>
    %step = kiln.constant dense<1> : tensor<i32>
    %next = kiln.add %i, %step : (tensor<i32>, tensor<i32>) -> tensor<i32>
    kiln.return %next : tensor<i32>
  } : (tensor<i32>) -> tensor<i32>
  return %0 : tensor<i32>
}
