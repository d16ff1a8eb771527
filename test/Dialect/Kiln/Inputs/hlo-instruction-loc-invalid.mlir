// Malformed instruction locations, for hlo-instruction-loc.mlir; each line
// is parsed separately (split-input-file).
func.func @metadata_not_a_location() { return loc(#kiln_hlo.instruction<"a.hlo":3:5, 7>) }

// -----

func.func @unknown_mnemonic() { return loc(#kiln_hlo.bogus<1>) }
