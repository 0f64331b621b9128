"""What comes in: the inference pipeline's files (`importers`), scanned papers (`scans`), grading
schemes (`schemes`), anonymous labels (`labels`), uploaded zips, and the import commands."""
