func.func private @f() attributes {a = array<index: 1>}
