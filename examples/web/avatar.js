// The profile picture: one object per user, `avatar`, in the app's `avatars` bucket, uploaded with a
// progress bar and shown from a Blob (the bytes come through the client, with the session).
import { $, run } from './ui.js';

export function avatar(gatehouse) {
  const bucket = gatehouse.storage.from('avatars');
  let shown;

  function show(blob) {
    if (shown) URL.revokeObjectURL(shown);
    shown = blob ? URL.createObjectURL(blob) : undefined;
    for (const id of ['avatar', 'header-avatar']) {
      $(id).hidden = !shown;
      if (shown) $(id).src = shown;
    }
    $('avatar-placeholder').hidden = Boolean(shown);
  }

  async function load() {
    try {
      show(await bucket.download('avatar'));
    } catch (error) {
      if (error.status !== 404) throw error;
      show(undefined); // no picture yet
    }
  }

  $('avatar-file').onchange = () => {
    const file = $('avatar-file').files[0];
    if (!file) return;
    const bar = $('avatar-progress');
    bar.hidden = false;
    bar.value = 0;
    run('Uploading your picture…', async () => {
      await bucket.upload('avatar', file, { onProgress: ({ loaded, total }) => (bar.value = total ? loaded / total : 1) });
      show(file);
      $('avatar-file').value = '';
      return 'Picture updated.';
    }).finally(() => (bar.hidden = true));
  };

  return { load, clear: () => show(undefined) };
}
