"""Human contestants' scanned papers: answer-sheet covers to print (`covers`), reading scanned
PDFs into pages sorted by contestant and problem (`reading`), and importing them as papers with
masked, metadata-free page images (`importing`)."""
