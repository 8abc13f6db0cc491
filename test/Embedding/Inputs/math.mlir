// A dialect the downstream tool registers itself (Spio does not use math).
func.func @exp(%x: f32) -> f32 {
  %y = math.exp %x : f32
  return %y : f32
}
