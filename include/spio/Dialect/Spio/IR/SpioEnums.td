//===- SpioEnums.td - Spio enumerations ---------------------*- tablegen -*-===//

#ifndef SPIO_ENUMS_TD
#define SPIO_ENUMS_TD

include "mlir/IR/EnumAttr.td"

def Spio_MemorySpace : I32EnumAttr<"MemorySpace", "where a tensor lives", [
    I32EnumAttrCase<"Global", 0, "global">,
    I32EnumAttrCase<"Shared", 1, "shared">,
    I32EnumAttrCase<"Register", 2, "register">]> {
  let cppNamespace = "::mlir::spio";
  let genSpecializedAttr = 0;
}

def Spio_FragmentOperand : I32EnumAttr<"FragmentOperand",
    "which operand of an mma a fragment holds", [
    I32EnumAttrCase<"A", 0, "A">,
    I32EnumAttrCase<"B", 1, "B">,
    I32EnumAttrCase<"C", 2, "C">]> {
  let cppNamespace = "::mlir::spio";
  let genSpecializedAttr = 0;
}

def Spio_MmaShape : I32EnumAttr<"MmaShape", "an mma.sync instruction shape", [
    I32EnumAttrCase<"M16N8K8", 0, "m16n8k8">,
    I32EnumAttrCase<"M16N8K16", 1, "m16n8k16">]> {
  let cppNamespace = "::mlir::spio";
  let genSpecializedAttr = 0;
}

def Spio_CmpPredicate : I32EnumAttr<"CmpPredicate",
    "a comparison of two coordinates", [
    I32EnumAttrCase<"eq", 0>, I32EnumAttrCase<"ne", 1>,
    I32EnumAttrCase<"lt", 2>, I32EnumAttrCase<"le", 3>,
    I32EnumAttrCase<"gt", 4>, I32EnumAttrCase<"ge", 5>]> {
  let cppNamespace = "::mlir::spio";
}

def Spio_LinearId : I32EnumAttr<"LinearId", "a hardware linear id", [
    I32EnumAttrCase<"Thread", 0, "thread">,
    I32EnumAttrCase<"Lane", 1, "lane">,
    I32EnumAttrCase<"Warp", 2, "warp">,
    I32EnumAttrCase<"BlockX", 3, "block_x">,
    I32EnumAttrCase<"BlockY", 4, "block_y">,
    I32EnumAttrCase<"BlockZ", 5, "block_z">,
    I32EnumAttrCase<"ClusterBlock", 6, "cluster_block">]> {
  let cppNamespace = "::mlir::spio";
}

def Spio_RegisterAction : I32EnumAttr<"RegisterAction",
    "whether a warpgroup's register budget grows or shrinks", [
    I32EnumAttrCase<"Increase", 0, "increase">,
    I32EnumAttrCase<"Decrease", 1, "decrease">]> {
  let cppNamespace = "::mlir::spio";
}

def Spio_ConvPass : I32EnumAttr<"ConvPass", "a pass of a convolution", [
    I32EnumAttrCase<"Fprop", 0, "fprop">,
    I32EnumAttrCase<"Dgrad", 1, "dgrad">,
    I32EnumAttrCase<"Wgrad", 2, "wgrad">]> {
  let cppNamespace = "::mlir::spio";
}

def Spio_WgradParts : I32EnumAttr<"WgradParts",
    "the part of wgrad's band loop that runs alone (a timing diagnostic)", [
    I32EnumAttrCase<"Copies", 0, "copies">,
    I32EnumAttrCase<"CopiesWithoutRowHalo", 1, "copies_without_row_halo">,
    I32EnumAttrCase<"Mma", 2, "mma">]> {
  let cppNamespace = "::mlir::spio";
}

def Spio_Activation : I32EnumAttr<"Activation", "an elementwise activation function", [
    I32EnumAttrCase<"Relu", 0, "relu">,
    I32EnumAttrCase<"GeluTanh", 1, "gelu_tanh">,
    I32EnumAttrCase<"GeluErf", 2, "gelu_erf">,
    I32EnumAttrCase<"Silu", 3, "silu">]> {
  let cppNamespace = "::mlir::spio";
}

def Spio_EpilogueStep : I32EnumAttr<"EpilogueStep",
    "one step a GEMM applies to its sums before the store", [
    I32EnumAttrCase<"Scale", 0, "scale">,
    I32EnumAttrCase<"Bias", 1, "bias">,
    I32EnumAttrCase<"Residual", 2, "residual">,
    I32EnumAttrCase<"Relu", 3, "relu">,
    I32EnumAttrCase<"GeluTanh", 4, "gelu_tanh">,
    I32EnumAttrCase<"GeluErf", 5, "gelu_erf">,
    I32EnumAttrCase<"Silu", 6, "silu">]> {
  let cppNamespace = "::mlir::spio";
  let genSpecializedAttr = 0;
}

#endif // SPIO_ENUMS_TD
