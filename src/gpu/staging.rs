//! Host ↔ device transfers through two persistent staging buffers.
//!
//! Rules:
//! - The host-slice functions' transfers larger than [`SMALL`] go through one upload and one
//!   download buffer of [`CHUNK`] bytes, made once per context and reused: map, copy one chunk,
//!   unmap, copy on the GPU, wait; then the next chunk. Memory for transfers is bounded (two
//!   chunks) and never allocated and freed per call.
//! - Why: a single `write_buffer` of a 1 GiB input makes wgpu allocate a 1 GiB staging buffer
//!   (host-visible device memory on a GPU with a full BAR, such as the H100), and a read-back
//!   buffer of the output's size per call would double that.
//! - Small transfers (parameters, partial results) use `Queue::write_buffer` and a read-back
//!   buffer of their own, as wgpu intends: they come from its sub-allocated blocks.

use std::sync::{Arc, Mutex};

use crate::error::{Error, Result};

/// Bytes per staging chunk.
pub const CHUNK: u64 = 64 << 20;
/// Transfers up to this size use wgpu's own staging.
pub const SMALL: u64 = 1 << 20;

/// The two staging buffers, made on first use.
#[derive(Default)]
pub struct Staging {
    up: Option<wgpu::Buffer>,
    down: Option<wgpu::Buffer>,
}

fn wait(device: &wgpu::Device, what: &str) -> Result<()> {
    device
        .poll(wgpu::PollType::wait_indefinitely())
        .map(|_| ())
        .map_err(|e| Error::Gpu(format!("waiting for {what}: {e}")))
}

/// Polls the device until `done()` holds. Another thread's poll may be the one that runs our
/// map callback, so a returned poll does not mean the callback has run: poll again (briefly
/// yielding) until it has.
pub fn poll_until(device: &wgpu::Device, what: &str, done: impl Fn() -> bool) -> Result<()> {
    loop {
        wait(device, what)?;
        if done() {
            return Ok(());
        }
        std::thread::yield_now();
    }
}

/// Maps `slice` and waits for it.
fn map(device: &wgpu::Device, slice: wgpu::BufferSlice<'_>, mode: wgpu::MapMode) -> Result<()> {
    let result = Arc::new(Mutex::new(None));
    let r = result.clone();
    slice.map_async(mode, move |m| *r.lock().unwrap() = Some(m));
    poll_until(device, "a staging buffer", || {
        result.lock().unwrap().is_some()
    })?;
    let outcome = result.lock().unwrap().take();
    match outcome {
        Some(Ok(())) => Ok(()),
        Some(Err(e)) => Err(Error::Gpu(format!("mapping a staging buffer: {e}"))),
        None => Err(Error::Gpu("a staging buffer was not mapped".into())),
    }
}

impl Staging {
    fn buffer<'a>(
        slot: &'a mut Option<wgpu::Buffer>,
        device: &wgpu::Device,
        usage: wgpu::BufferUsages,
    ) -> &'a wgpu::Buffer {
        slot.get_or_insert_with(|| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("staging"),
                size: CHUNK,
                usage,
                mapped_at_creation: false,
            })
        })
    }

    /// Writes `bytes` (a multiple of 4 long) to `dst` from byte `at` on, one chunk at a time.
    pub fn upload(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        dst: &wgpu::Buffer,
        at: u64,
        bytes: &[u8],
    ) -> Result<()> {
        let up = Self::buffer(
            &mut self.up,
            device,
            wgpu::BufferUsages::MAP_WRITE | wgpu::BufferUsages::COPY_SRC,
        );
        for (i, part) in bytes.chunks(CHUNK as usize).enumerate() {
            let len = part.len() as u64;
            map(device, up.slice(..len), wgpu::MapMode::Write)?;
            up.slice(..len)
                .get_mapped_range_mut()
                .map_err(|e| Error::Gpu(format!("writing a staging buffer: {e}")))?
                .copy_from_slice(part);
            up.unmap();
            let mut enc = device.create_command_encoder(&Default::default());
            enc.copy_buffer_to_buffer(up, 0, dst, at + i as u64 * CHUNK, len);
            queue.submit([enc.finish()]);
        }
        // the next map waits for the copy; the last copy is ordered before later submissions
        Ok(())
    }

    /// Reads `size` bytes (a multiple of 4) of `src` from byte `at` on, one chunk at a time.
    pub fn download(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        src: &wgpu::Buffer,
        at: u64,
        size: u64,
    ) -> Result<Vec<u8>> {
        let down = Self::buffer(
            &mut self.down,
            device,
            wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        );
        let mut out = Vec::with_capacity(size as usize);
        let mut offset = 0;
        while offset < size {
            let len = CHUNK.min(size - offset);
            let mut enc = device.create_command_encoder(&Default::default());
            enc.copy_buffer_to_buffer(src, at + offset, down, 0, len);
            queue.submit([enc.finish()]);
            map(device, down.slice(..len), wgpu::MapMode::Read)?;
            out.extend_from_slice(
                &down
                    .slice(..len)
                    .get_mapped_range()
                    .map_err(|e| Error::Gpu(format!("reading a staging buffer: {e}")))?,
            );
            down.unmap();
            offset += len;
        }
        Ok(out)
    }
}
