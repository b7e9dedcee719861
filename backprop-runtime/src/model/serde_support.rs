//! Saving and loading models with serde (the `serde` feature): the derive
//! of `Differentiable` always invokes [`__impl_serde!`](crate::__impl_serde),
//! which writes `Serialize` and `Deserialize` when this crate's `serde`
//! feature is on and nothing when it is off, so a user's crate needs no
//! feature of its own. The impls are the ones serde's own derive would
//! write for the struct: a map of the fields by name (a sequence for a
//! tuple struct). Every field, constants included, is saved: a model is
//! `Serialize` (`Deserialize`) where all its field types are.

/// Writes `Serialize` and `Deserialize` for a struct the derive read: its
/// name, its impl generics, its type arguments, its where predicates (each
/// ending in a comma), its field types, and its fields.
///
/// Every field type is bounded, `for<'__x> Field: Serialize`: the binder
/// keeps a bound on a concrete type from being an error where it does not
/// hold (an enum of the user's without serde's impls), so such a model is
/// simply not `Serialize`, and turning the feature on (perhaps through
/// another crate of the build) breaks no model. A `&'static str` field
/// makes the model loadable from `'static` input only, as its bound says.
#[cfg(feature = "serde")]
#[doc(hidden)]
#[macro_export]
macro_rules! __impl_serde {
    (
        named $name:ident [$($params:tt)*] [$($args:tt)*] [$($pred:tt)*] [$($bound:ty),*]
        { $($field:ident : $ty:ty = $key:literal),* }
    ) => {
        const _: () = {
            use $crate::__serde as __backprop_serde;
            const __BACKPROP_FIELDS: &[&str] = &[$($key),*];

            impl<$($params)*> __backprop_serde::Serialize for $name<$($args)*>
            where $($pred)* $(for<'__x> $bound: __backprop_serde::Serialize,)*
            {
                fn serialize<__S: __backprop_serde::Serializer>(&self, serializer: __S) -> ::core::result::Result<__S::Ok, __S::Error> {
                    let mut state = __backprop_serde::Serializer::serialize_struct(serializer, stringify!($name), __BACKPROP_FIELDS.len())?;
                    $(__backprop_serde::ser::SerializeStruct::serialize_field(&mut state, $key, &self.$field)?;)*
                    __backprop_serde::ser::SerializeStruct::end(state)
                }
            }

            struct __BackpropVisit<$($params)*>(::core::marker::PhantomData<fn() -> $name<$($args)*>>) where $($pred)*;

            impl<'de, $($params)*> __backprop_serde::de::Visitor<'de> for __BackpropVisit<$($args)*>
            where $($pred)* $(for<'__x> $bound: __backprop_serde::Deserialize<'de>,)*
            {
                type Value = $name<$($args)*>;
                fn expecting(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                    f.write_str(concat!("struct ", stringify!($name)))
                }
                fn visit_seq<__A: __backprop_serde::de::SeqAccess<'de>>(self, mut seq: __A) -> ::core::result::Result<Self::Value, __A::Error> {
                    let mut read = 0usize;
                    $(
                        let $field: $ty = match seq.next_element()? {
                            ::core::option::Option::Some(value) => value,
                            ::core::option::Option::None => {
                                return ::core::result::Result::Err(__backprop_serde::de::Error::invalid_length(read, &self));
                            }
                        };
                        read += 1;
                    )*
                    let _ = read;
                    ::core::result::Result::Ok($name { $($field),* })
                }
                fn visit_map<__A: __backprop_serde::de::MapAccess<'de>>(self, mut map: __A) -> ::core::result::Result<Self::Value, __A::Error> {
                    $(let mut $field: ::core::option::Option<$ty> = ::core::option::Option::None;)*
                    while let ::core::option::Option::Some(key) = map.next_key_seed($crate::model::serde_support::Key(__BACKPROP_FIELDS))? {
                        match key {
                            $(::core::option::Option::Some($key) => {
                                if $field.is_some() {
                                    return ::core::result::Result::Err(__backprop_serde::de::Error::duplicate_field($key));
                                }
                                $field = ::core::option::Option::Some(map.next_value()?);
                            })*
                            _ => {
                                map.next_value::<__backprop_serde::de::IgnoredAny>()?;
                            }
                        }
                    }
                    $(
                        let ::core::option::Option::Some($field) = $field else {
                            return ::core::result::Result::Err(__backprop_serde::de::Error::missing_field($key));
                        };
                    )*
                    ::core::result::Result::Ok($name { $($field),* })
                }
            }

            impl<'de, $($params)*> __backprop_serde::Deserialize<'de> for $name<$($args)*>
            where $($pred)* $(for<'__x> $bound: __backprop_serde::Deserialize<'de>,)*
            {
                fn deserialize<__D: __backprop_serde::Deserializer<'de>>(deserializer: __D) -> ::core::result::Result<Self, __D::Error> {
                    deserializer.deserialize_struct(stringify!($name), __BACKPROP_FIELDS, __BackpropVisit(::core::marker::PhantomData))
                }
            }
        };
    };
    (
        tuple $name:ident [$($params:tt)*] [$($args:tt)*] [$($pred:tt)*] [$($bound:ty),*]
        ( $($index:tt $var:ident : $ty:ty),* )
    ) => {
        const _: () = {
            use $crate::__serde as __backprop_serde;
            const __BACKPROP_LEN: usize = [$(stringify!($index)),*].len();

            impl<$($params)*> __backprop_serde::Serialize for $name<$($args)*>
            where $($pred)* $(for<'__x> $bound: __backprop_serde::Serialize,)*
            {
                fn serialize<__S: __backprop_serde::Serializer>(&self, serializer: __S) -> ::core::result::Result<__S::Ok, __S::Error> {
                    let mut state = __backprop_serde::Serializer::serialize_tuple_struct(serializer, stringify!($name), __BACKPROP_LEN)?;
                    $(__backprop_serde::ser::SerializeTupleStruct::serialize_field(&mut state, &self.$index)?;)*
                    __backprop_serde::ser::SerializeTupleStruct::end(state)
                }
            }

            struct __BackpropVisit<$($params)*>(::core::marker::PhantomData<fn() -> $name<$($args)*>>) where $($pred)*;

            impl<'de, $($params)*> __backprop_serde::de::Visitor<'de> for __BackpropVisit<$($args)*>
            where $($pred)* $(for<'__x> $bound: __backprop_serde::Deserialize<'de>,)*
            {
                type Value = $name<$($args)*>;
                fn expecting(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                    f.write_str(concat!("tuple struct ", stringify!($name)))
                }
                fn visit_seq<__A: __backprop_serde::de::SeqAccess<'de>>(self, mut seq: __A) -> ::core::result::Result<Self::Value, __A::Error> {
                    let mut read = 0usize;
                    $(
                        let $var: $ty = match seq.next_element()? {
                            ::core::option::Option::Some(value) => value,
                            ::core::option::Option::None => {
                                return ::core::result::Result::Err(__backprop_serde::de::Error::invalid_length(read, &self));
                            }
                        };
                        read += 1;
                    )*
                    let _ = read;
                    ::core::result::Result::Ok($name($($var),*))
                }
            }

            impl<'de, $($params)*> __backprop_serde::Deserialize<'de> for $name<$($args)*>
            where $($pred)* $(for<'__x> $bound: __backprop_serde::Deserialize<'de>,)*
            {
                fn deserialize<__D: __backprop_serde::Deserializer<'de>>(deserializer: __D) -> ::core::result::Result<Self, __D::Error> {
                    deserializer.deserialize_tuple_struct(stringify!($name), __BACKPROP_LEN, __BackpropVisit(::core::marker::PhantomData))
                }
            }
        };
    };
}

/// Without the `serde` feature: nothing.
#[cfg(not(feature = "serde"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __impl_serde {
    ($($any:tt)*) => {};
}

/// The key of a struct's field in a map: the field's name as the struct
/// spells it, or `None` for a key that is not a field (ignored, as serde's
/// derive ignores it).
#[cfg(feature = "serde")]
pub struct Key(pub &'static [&'static str]);

#[cfg(feature = "serde")]
impl<'de> serde::de::DeserializeSeed<'de> for Key {
    type Value = Option<&'static str>;
    fn deserialize<D: serde::Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_identifier(self)
    }
}

#[cfg(feature = "serde")]
impl serde::de::Visitor<'_> for Key {
    type Value = Option<&'static str>;
    fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("a field name")
    }
    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(self.0.iter().copied().find(|name| *name == v))
    }
    fn visit_bytes<E: serde::de::Error>(self, v: &[u8]) -> Result<Self::Value, E> {
        Ok(self.0.iter().copied().find(|name| name.as_bytes() == v))
    }
    fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Self::Value, E> {
        Ok(usize::try_from(v).ok().and_then(|i| self.0.get(i)).copied())
    }
}
