//! Distributed set membership (DB-SM) and reverse set membership (DB-RSM).
