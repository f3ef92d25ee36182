//! A `MemBuffer` that can be stored in `#[derive(Debug)]` workspaces.

use faer::dyn_stack::{MemBuffer, MemStack, StackReq};

/// Scratch memory allocated once, in a workspace's `new`.
pub(crate) struct Scratch {
    buf: MemBuffer,
    req: StackReq,
}

impl Scratch {
    pub(crate) fn new(req: StackReq) -> Self {
        Self {
            buf: MemBuffer::new(req),
            req,
        }
    }

    pub(crate) fn stack(&mut self) -> &mut MemStack {
        MemStack::new(&mut self.buf)
    }
}

impl core::fmt::Debug for Scratch {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Scratch")
            .field("bytes", &self.req.size_bytes())
            .finish()
    }
}
