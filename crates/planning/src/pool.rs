//! [`Pool`]: the workspaces of the planning objects, lent by a thread-safe pool (no interior
//! mutability in the objects themselves), so that a [`crate::dynamics::PathDynamics`], a
//! [`crate::limits::AccelerationLimits`] or an [`crate::joint_path::IkJointPath`] is `Sync`
//! and one of them serves many threads.

use std::ops::{Deref, DerefMut};
use std::sync::{Mutex, MutexGuard, PoisonError, TryLockError};

/// Workspaces of type `T`: a call takes the primary one when it is free (one uncontended
/// lock), otherwise a spare (a copy of the pristine workspace, made only when more calls hold
/// one at once than ever before), so after the first calls nothing allocates. A caller's
/// result never depends on which workspace it gets: the caches in them are keyed on their
/// inputs and hold values that are recomputed bit for bit.
pub(crate) struct Pool<T: Clone> {
    primary: Mutex<T>,
    spare: Mutex<Vec<T>>,
    /// The workspace as built, copied for a spare or after a panic.
    pristine: T,
}

impl<T: Clone> Pool<T> {
    /// A pool whose workspaces are copies of `workspace`.
    pub(crate) fn new(workspace: T) -> Self {
        Self {
            primary: Mutex::new(workspace.clone()),
            spare: Mutex::new(Vec::new()),
            pristine: workspace,
        }
    }

    /// A free workspace, given back when the guard drops.
    pub(crate) fn get(&self) -> Lent<'_, T> {
        match self.primary.try_lock() {
            Ok(g) => Lent::Primary(g),
            Err(TryLockError::Poisoned(p)) => {
                // a panic inside an earlier call may have left its caches half written
                let mut g = p.into_inner();
                *g = self.pristine.clone();
                self.primary.clear_poison();
                Lent::Primary(g)
            }
            Err(TryLockError::WouldBlock) => {
                let spare = self
                    .spare
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .pop();
                Lent::Spare {
                    pool: self,
                    item: Some(spare.unwrap_or_else(|| self.pristine.clone())),
                }
            }
        }
    }
}

/// A workspace lent by a [`Pool`].
pub(crate) enum Lent<'p, T: Clone> {
    /// The primary workspace, locked.
    Primary(MutexGuard<'p, T>),
    /// A spare, pushed back into `pool` on drop (`item` is `Some` until then).
    Spare { pool: &'p Pool<T>, item: Option<T> },
}

impl<T: Clone> Deref for Lent<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        match self {
            Lent::Primary(g) => g,
            Lent::Spare { item, pool } => item.as_ref().unwrap_or(&pool.pristine),
        }
    }
}

impl<T: Clone> DerefMut for Lent<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        match self {
            Lent::Primary(g) => g,
            Lent::Spare { item, pool } => item.get_or_insert_with(|| pool.pristine.clone()),
        }
    }
}

impl<T: Clone> Drop for Lent<'_, T> {
    fn drop(&mut self) {
        if let Lent::Spare { pool, item } = self {
            if let Some(w) = item.take() {
                pool.spare
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .push(w);
            }
        }
    }
}

impl<T: Clone> Clone for Pool<T> {
    /// A pool with pristine workspaces.
    fn clone(&self) -> Self {
        Self::new(self.pristine.clone())
    }
}
