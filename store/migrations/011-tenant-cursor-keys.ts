export default {
  version: 11,
  name: 'tenant-cursor-keys',
  sql: `
    -- The key a tenant's RL event and log cursors are signed with (hex, 32 bytes), made with the
    -- tenant, carried by its snapshot: a tenant restored on another server answers the same
    -- cursors. NULL for tenants made before it existed: they keep the server's cursor secrets, so
    -- the cursors they were given stay valid.
    ALTER TABLE tenants ADD COLUMN cursor_key TEXT;
  `,
};
