// Placeholder translation unit until the store lands (the db room owns this).
namespace ktune {}
