// A host transfer: it imports, but neither the evaluator nor the CPU
// backend runs it (conformance-messages.test).
func.func @main() -> tensor<2xf32> {
  %token = stablehlo.after_all : !stablehlo.token
  %data, %done = "stablehlo.recv"(%token) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 3>, is_host_transfer = true} : (!stablehlo.token) -> (tensor<2xf32>, !stablehlo.token)
  return %data : tensor<2xf32>
}
