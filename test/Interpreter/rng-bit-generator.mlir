// RUN: kiln run --interpret %s | FileCheck %s

// rng_bit_generator gives XLA's bits: ThreeFry-2x32 (Random123's known
// answer for counter 0 and key 0 is 0x6b200159 0x99ba4efe; a u32[3,2]
// output takes two words per counter along its even dimension, and the
// counter advances by 3), and Philox-4x32, which is also what the default
// algorithm is (four words per counter; for u64, two words per element;
// a two-word state keeps only the counter's low word).

// CHECK-NOT: FAILED
// CHECK: 6 of 6 checks passed

func.func public @main() {
  %s = stablehlo.constant dense<[0, 0]> : tensor<2xui64>
  %t:2 = stablehlo.rng_bit_generator %s, algorithm = THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<3x2xui32>)
  // 0x6b200159 0x99ba4efe / 0x508efb2c 0xc0de3f32 / 0x64a626ec 0xfc15e573
  check.expect_eq_const %t#1, dense<[[1797259609, 2579123966], [1351547692, 3235790642], [1688610540, 4229293427]]> : tensor<3x2xui32>
  check.expect_eq_const %t#0, dense<[0, 3]> : tensor<2xui64>
  %p:2 = stablehlo.rng_bit_generator %s, algorithm = PHILOX : (tensor<2xui64>) -> (tensor<2xui64>, tensor<6xui32>)
  // 0x6627e8d5 0xe169c58d 0xbc57ac4c 0x9b00dbd8 0xf8e4cca4 0x5cb200db
  check.expect_eq_const %p#1, dense<[1713891541, 3781805453, 3159862348, 2600524760, 4175744164, 1555169499]> : tensor<6xui32>
  check.expect_eq_const %p#0, dense<[0, 2]> : tensor<2xui64>
  // 0xe169c58d6627e8d5 0x9b00dbd8bc57ac4c 0x5cb200dbf8e4cca4
  %d:2 = stablehlo.rng_bit_generator %s, algorithm = DEFAULT : (tensor<2xui64>) -> (tensor<2xui64>, tensor<3xui64>)
  check.expect_eq_const %d#1, dense<[16242730742183356629, 11169168799798111308, 6679402142117448868]> : tensor<3xui64>
  check.expect_eq_const %d#0, dense<[0, 2]> : tensor<2xui64>
  func.return
}
