//! Placeholder: filled in by the cpSNARK-Set issue.
