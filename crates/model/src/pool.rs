//! [`Pool`]: scratch workspaces lent by a thread-safe pool, so that a model whose evaluations
//! need scratch stays immutable and `Sync` behind a `&self` method.
//!
//! **Pool or caller-owned workspace.** A tree algorithm called directly takes its workspace
//! from the caller (`TreeData`, Pinocchio's `Data`): no lock, no sharing. The [`crate::Mechanism`]
//! trait keeps `&self` and takes no workspace, because every integrator, constraint method and
//! door calls it through that one signature, and a workspace parameter would have to be
//! threaded through all of them for every model, most of which need none. A model that needs
//! scratch behind the trait ([`crate::autodiff::AutoDiff`], the trees, the planning objects)
//! holds one `Pool` of it: a call takes the primary workspace with one uncontended `try_lock`,
//! a concurrent call takes a spare, and a spare is made only when more calls run at once than
//! ever before, so after the first calls of a run nothing allocates. A workspace holds scratch
//! and caches keyed on their inputs only: a result never depends on which workspace a call
//! gets.

use std::ops::{Deref, DerefMut};
use std::sync::{Mutex, MutexGuard, PoisonError, TryLockError};

/// Workspaces of type `T`, copies of the one given to [`Pool::new`] (see the module
/// documentation).
pub struct Pool<T: Clone> {
    primary: Mutex<T>,
    spare: Mutex<Vec<T>>,
    /// The workspace as built, copied for a spare or after a panic.
    pristine: T,
}

impl<T: Clone> Pool<T> {
    /// A pool whose workspaces are copies of `workspace`.
    pub fn new(workspace: T) -> Self {
        Self {
            primary: Mutex::new(workspace.clone()),
            spare: Mutex::new(Vec::new()),
            pristine: workspace,
        }
    }

    /// A free workspace, given back when the guard drops. The primary workspace after a
    /// panic inside an earlier borrow is replaced by a pristine copy (its caches may be half
    /// written).
    pub fn get(&self) -> Lent<'_, T> {
        match self.primary.try_lock() {
            Ok(g) => Lent(Inner::Primary(g)),
            Err(TryLockError::Poisoned(p)) => {
                let mut g = p.into_inner();
                g.clone_from(&self.pristine);
                self.primary.clear_poison();
                Lent(Inner::Primary(g))
            }
            Err(TryLockError::WouldBlock) => {
                let spare = self
                    .spare
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .pop();
                Lent(Inner::Spare {
                    pool: self,
                    item: Some(spare.unwrap_or_else(|| self.pristine.clone())),
                })
            }
        }
    }

    /// Runs `f` on a free workspace ([`Pool::get`]).
    pub fn with<R>(&self, f: impl FnOnce(&mut T) -> R) -> R {
        f(&mut self.get())
    }

    /// The workspace every lent one starts as.
    pub fn pristine(&self) -> &T {
        &self.pristine
    }

    /// Spare workspaces made so far and now free (for tests and diagnostics).
    pub fn spares(&self) -> usize {
        self.spare
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }
}

impl<T: Clone> Clone for Pool<T> {
    /// A pool of pristine workspaces and no spares.
    fn clone(&self) -> Self {
        Self::new(self.pristine.clone())
    }
}

impl<T: Clone> std::fmt::Debug for Pool<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pool")
            .field("spares", &self.spares())
            .finish_non_exhaustive()
    }
}

/// A workspace lent by a [`Pool`]; it goes back to the pool on drop.
pub struct Lent<'p, T: Clone>(Inner<'p, T>);

enum Inner<'p, T: Clone> {
    /// The primary workspace, locked.
    Primary(MutexGuard<'p, T>),
    /// A spare, pushed back into `pool` on drop (`item` is `Some` until then).
    Spare { pool: &'p Pool<T>, item: Option<T> },
}

impl<T: Clone> Deref for Lent<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        match &self.0 {
            Inner::Primary(g) => g,
            Inner::Spare { item, pool } => item.as_ref().unwrap_or(&pool.pristine),
        }
    }
}

impl<T: Clone> DerefMut for Lent<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        match &mut self.0 {
            Inner::Primary(g) => g,
            Inner::Spare { item, pool } => item.get_or_insert_with(|| pool.pristine.clone()),
        }
    }
}

impl<T: Clone> Drop for Lent<'_, T> {
    fn drop(&mut self) {
        if let Inner::Spare { pool, item } = &mut self.0 {
            if let Some(w) = item.take() {
                pool.spare
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .push(w);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Pool;

    #[test]
    fn one_caller_reuses_the_primary_and_makes_no_spare() {
        let pool = Pool::new(vec![0.0; 3]);
        for k in 0..5 {
            pool.with(|w| w[0] += k as f64);
        }
        assert_eq!(pool.spares(), 0);
        // the primary keeps what the calls wrote: it is reused, not copied
        assert_eq!(pool.get()[0], 10.0);
    }

    #[test]
    fn a_concurrent_borrow_gets_a_pristine_spare_that_is_kept() {
        let pool = Pool::new(vec![1.0; 2]);
        let mut a = pool.get();
        a[0] = 7.0;
        {
            let b = pool.get();
            assert_eq!(*b, vec![1.0; 2]);
        }
        assert_eq!(pool.spares(), 1);
        {
            let _c = pool.get();
            // the spare is lent again, not a new one
            assert_eq!(pool.spares(), 0);
        }
        drop(a);
        assert_eq!(pool.spares(), 1);
    }

    #[test]
    fn a_panic_inside_a_borrow_leaves_a_pristine_primary() {
        let pool = Pool::new(vec![0.0; 2]);
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            pool.with(|w| {
                w[1] = 5.0;
                panic!("half written");
            })
        }));
        assert!(r.is_err());
        assert_eq!(*pool.get(), vec![0.0; 2]);
    }

    #[test]
    fn threads_share_one_pool() {
        let pool = Pool::new(vec![0usize; 1]);
        std::thread::scope(|s| {
            for t in 0..4 {
                let pool = &pool;
                s.spawn(move || {
                    for _ in 0..100 {
                        pool.with(|w| w[0] = t);
                    }
                });
            }
        });
        assert!(pool.spares() <= 3);
    }

    #[test]
    fn a_clone_starts_pristine() {
        let pool = Pool::new(vec![2.0]);
        pool.with(|w| w[0] = 3.0);
        assert_eq!(*pool.clone().get(), vec![2.0]);
    }
}
