// RUN: kiln-opt --kiln-hoist-loop-invariants %s | FileCheck %s

// A while body's work that does not depend on the loop is done once,
// before it (XLA's while-loop invariant code motion), and enters the loop
// as state passed through unchanged; what depends on the loop, and ops that
// must run on every trip (random numbers, collectives, custom calls), stay.

// The form of XLA's b/380442861: every trip recomputes the same
// reduce(iota * iota).
// CHECK-LABEL: func.func @invariant_reduce
// CHECK:         kiln.iota
// CHECK-NEXT:    kiln.multiply
// CHECK-NEXT:    kiln.constant
// CHECK-NEXT:    %[[SUM:.*]] = kiln.reduce
// CHECK:         kiln.while(%{{.*}}, %{{.*}}, %[[SUM]])
// CHECK:         ^bb0(%{{.*}}: tensor<i32>, %{{.*}}: tensor<f32>, %{{.*}}: tensor<f32>):
// CHECK:         ^bb0(%[[I:[a-z0-9]+]]: tensor<i32>, %[[ACC:[a-z0-9]+]]: tensor<f32>, %[[CARRIED:[a-z0-9]+]]: tensor<f32>):
// CHECK-NOT:       kiln.iota
// CHECK-NOT:       kiln.reduce
// CHECK:           %[[NEXT:.*]] = kiln.add %[[ACC]], %[[CARRIED]]
// CHECK:           kiln.return %{{.*}}, %[[NEXT]], %[[CARRIED]]
func.func @invariant_reduce() -> tensor<f32> {
  %zero = kiln.constant dense<0> : tensor<i32>
  %start = kiln.constant dense<0.0> : tensor<f32>
  %0:2 = kiln.while(%zero, %start) {
  ^bb0(%i: tensor<i32>, %acc: tensor<f32>):
    %limit = kiln.constant dense<10> : tensor<i32>
    %more = kiln.compare %i, %limit {direction = "LT"} : (tensor<i32>, tensor<i32>) -> tensor<i1>
    kiln.return %more : tensor<i1>
  }, {
  ^bb0(%i: tensor<i32>, %acc: tensor<f32>):
    %iota = kiln.iota {iota_dimension = 0 : i64} : tensor<1000xf32>
    %square = kiln.multiply %iota, %iota : (tensor<1000xf32>, tensor<1000xf32>) -> tensor<1000xf32>
    %init = kiln.constant dense<0.0> : tensor<f32>
    %sum = kiln.reduce(%square, %init) attributes {dimensions = array<i64: 0>} {
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = kiln.add %a, %b : (tensor<f32>, tensor<f32>) -> tensor<f32>
      kiln.return %s : tensor<f32>
    } : (tensor<1000xf32>, tensor<f32>) -> tensor<f32>
    %next = kiln.add %acc, %sum : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %one = kiln.constant dense<1> : tensor<i32>
    %j = kiln.add %i, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
    kiln.return %j, %next : tensor<i32>, tensor<f32>
  } : (tensor<i32>, tensor<f32>) -> (tensor<i32>, tensor<f32>)
  return %0#1 : tensor<f32>
}

// Random numbers are drawn on every trip, and what uses them depends on
// the loop even without a block argument: nothing moves.
// CHECK-LABEL: func.func @random_stays
// CHECK:         kiln.while(%{{[^,]*}}, %{{[^,)]*}})
// CHECK:           kiln.rng
// CHECK:           kiln.reduce
func.func @random_stays() -> tensor<f32> {
  %zero = kiln.constant dense<0> : tensor<i32>
  %start = kiln.constant dense<0.0> : tensor<f32>
  %0:2 = kiln.while(%zero, %start) {
  ^bb0(%i: tensor<i32>, %acc: tensor<f32>):
    %limit = kiln.constant dense<10> : tensor<i32>
    %more = kiln.compare %i, %limit {direction = "LT"} : (tensor<i32>, tensor<i32>) -> tensor<i1>
    kiln.return %more : tensor<i1>
  }, {
  ^bb0(%i: tensor<i32>, %acc: tensor<f32>):
    %lo = kiln.constant dense<0.0> : tensor<f32>
    %hi = kiln.constant dense<1.0> : tensor<f32>
    %r = kiln.rng %lo, %hi {distribution = "rng_uniform"} : (tensor<f32>, tensor<f32>) -> tensor<8xf32>
    %init = kiln.constant dense<0.0> : tensor<f32>
    %sum = kiln.reduce(%r, %init) attributes {dimensions = array<i64: 0>} {
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = kiln.add %a, %b : (tensor<f32>, tensor<f32>) -> tensor<f32>
      kiln.return %s : tensor<f32>
    } : (tensor<8xf32>, tensor<f32>) -> tensor<f32>
    %next = kiln.add %acc, %sum : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %one = kiln.constant dense<1> : tensor<i32>
    %j = kiln.add %i, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
    kiln.return %j, %next : tensor<i32>, tensor<f32>
  } : (tensor<i32>, tensor<f32>) -> (tensor<i32>, tensor<f32>)
  return %0#1 : tensor<f32>
}

// A collective and a custom call run on every trip, even on invariant
// operands: they stay, and so does what uses them.
// CHECK-LABEL: func.func @effects_stay
// CHECK:         kiln.while(%{{[^,]*}}, %{{[^,)]*}})
// CHECK:           kiln.all_reduce
// CHECK:           kiln.custom_call
func.func @effects_stay() -> tensor<f32> {
  %zero = kiln.constant dense<0> : tensor<i32>
  %start = kiln.constant dense<0.0> : tensor<f32>
  %0:2 = kiln.while(%zero, %start) {
  ^bb0(%i: tensor<i32>, %acc: tensor<f32>):
    %limit = kiln.constant dense<10> : tensor<i32>
    %more = kiln.compare %i, %limit {direction = "LT"} : (tensor<i32>, tensor<i32>) -> tensor<i1>
    kiln.return %more : tensor<i1>
  }, {
  ^bb0(%i: tensor<i32>, %acc: tensor<f32>):
    %c = kiln.constant dense<2.0> : tensor<f32>
    %total = kiln.all_reduce(%c) attributes {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} {
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = kiln.add %a, %b : (tensor<f32>, tensor<f32>) -> tensor<f32>
      kiln.return %s : tensor<f32>
    } : (tensor<f32>) -> tensor<f32>
    %called = kiln.custom_call %c {custom_call_target = "Noop", backend_config = ""} : (tensor<f32>) -> tensor<f32>
    %both = kiln.add %total, %called : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %next = kiln.add %acc, %both : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %one = kiln.constant dense<1> : tensor<i32>
    %j = kiln.add %i, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
    kiln.return %j, %next : tensor<i32>, tensor<f32>
  } : (tensor<i32>, tensor<f32>) -> (tensor<i32>, tensor<f32>)
  return %0#1 : tensor<f32>
}

// What depends on the loop stays; a large invariant value is not carried
// through every trip (only the work whose results are small moves).
// CHECK-LABEL: func.func @large_stays
// CHECK:         kiln.while(%{{[^,]*}}, %{{[^,)]*}})
// CHECK:           kiln.iota
func.func @large_stays(%x: tensor<1000000xf32>) -> tensor<1000000xf32> {
  %zero = kiln.constant dense<0> : tensor<i32>
  %0:2 = kiln.while(%zero, %x) {
  ^bb0(%i: tensor<i32>, %acc: tensor<1000000xf32>):
    %limit = kiln.constant dense<10> : tensor<i32>
    %more = kiln.compare %i, %limit {direction = "LT"} : (tensor<i32>, tensor<i32>) -> tensor<i1>
    kiln.return %more : tensor<i1>
  }, {
  ^bb0(%i: tensor<i32>, %acc: tensor<1000000xf32>):
    %iota = kiln.iota {iota_dimension = 0 : i64} : tensor<1000000xf32>
    %next = kiln.add %acc, %iota : (tensor<1000000xf32>, tensor<1000000xf32>) -> tensor<1000000xf32>
    %one = kiln.constant dense<1> : tensor<i32>
    %j = kiln.add %i, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
    kiln.return %j, %next : tensor<i32>, tensor<1000000xf32>
  } : (tensor<i32>, tensor<1000000xf32>) -> (tensor<i32>, tensor<1000000xf32>)
  return %0#1 : tensor<1000000xf32>
}

// A loop inside the body is not moved out, even on invariant state: it
// might not end, and the outer loop might run no trips.
// CHECK-LABEL: func.func @inner_loop_stays
// CHECK:         kiln.while(%{{[^,]*}})
// CHECK:           kiln.while
func.func @inner_loop_stays() -> tensor<i32> {
  %zero = kiln.constant dense<0> : tensor<i32>
  %0 = kiln.while(%zero) {
  ^bb0(%i: tensor<i32>):
    %limit = kiln.constant dense<0> : tensor<i32>
    %more = kiln.compare %i, %limit {direction = "LT"} : (tensor<i32>, tensor<i32>) -> tensor<i1>
    kiln.return %more : tensor<i1>
  }, {
  ^bb0(%i: tensor<i32>):
    %start = kiln.constant dense<0> : tensor<i32>
    %forever = kiln.while(%start) {
    ^bb0(%j: tensor<i32>):
      %yes = kiln.constant dense<true> : tensor<i1>
      kiln.return %yes : tensor<i1>
    }, {
    ^bb0(%j: tensor<i32>):
      kiln.return %j : tensor<i32>
    } : (tensor<i32>) -> tensor<i32>
    %next = kiln.add %i, %forever : (tensor<i32>, tensor<i32>) -> tensor<i32>
    kiln.return %next : tensor<i32>
  } : (tensor<i32>) -> tensor<i32>
  return %0 : tensor<i32>
}
