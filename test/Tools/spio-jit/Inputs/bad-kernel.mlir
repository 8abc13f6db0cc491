gpu.module @m {
  gpu.func @k(%t: !spio.tensor<[i: 4] x f32, global>) kernel {
    %j = spio.constant 0 : !spio.coord<j>
    %v = spio.load %t[%j] : !spio.tensor<[i: 4] x f32, global>[!spio.coord<j>]
    gpu.return
  }
}
